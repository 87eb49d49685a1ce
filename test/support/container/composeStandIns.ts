/**
 * Stand-ins for the Redis and nginx images deploy/compose.yaml names (Docker Hub's, which cannot
 * be reached here): one image, tagged with both names, made of the Node base image the service's
 * build uses (nodeBaseImage.ts, in the store by then) and Debian bookworm's `redis-server` and
 * `nginx`. Only the packages that base lacks are fetched, by this machine's apt reading the base's
 * own dpkg status, and dpkg installs them in a build step: seconds, where a second mmdebstrap
 * takes minutes. Its entrypoint does for the compose file what the official images' do: a
 * `redis-server` given no config file works in /data and listens to its network
 * (`--protected-mode no`); nginx logs to the container's output and runs in the foreground (the
 * image's CMD). An image of either name already in the store (an official one, or a stand-in of
 * an earlier run) is used as it is.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { imageExists, podman, ulimitArgs } from './podman.js'

/** a short image name as podman stores it: `redis:7` is `docker.io/library/redis:7` */
export function qualifiedImage(name: string): string {
  if (!name.includes('/')) return `docker.io/library/${name}`
  const first = name.split('/')[0]!
  return first.includes('.') || first.includes(':') || first === 'localhost' ? name : `docker.io/${name}`
}

const PACKAGES = ['redis-server', 'nginx']

const ENTRYPOINT = `#!/bin/sh
set -e
if [ "$1" = redis-server ]; then
  mkdir -p /data && cd /data
  case "$2" in *.conf) ;; *) shift; set -- redis-server --protected-mode no "$@" ;; esac
fi
exec "$@"
`

const containerfile = (base: string) => `FROM ${base}
RUN --mount=type=bind,source=.,target=/ctx \\
    printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod 0755 /usr/sbin/policy-rc.d \\
 && dpkg -i /ctx/debs/*.deb > /dev/null \\
 && rm /usr/sbin/policy-rc.d \\
 && install -m 0755 /ctx/entrypoint.sh /usr/local/bin/docker-entrypoint.sh \\
 && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["nginx", "-g", "daemon off;"]
`

/** the .deb files of PACKAGES and what they need beyond `status` (a dpkg status file), into `dir` */
function fetchDebs(status: string, dir: string): void {
  mkdirSync(join(dir, 'partial'), { recursive: true })
  const args = [
    '-qq',
    '-o',
    `Dir::State::status=${status}`,
    '-o',
    `Dir::Cache::archives=${dir}`,
    '-o',
    'Debug::NoLocking=1',
    '-o',
    'APT::Install-Recommends=false',
    'install',
    '--download-only',
    '-y',
    ...PACKAGES,
  ]
  const run = () => execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 })
  try {
    run()
  } catch {
    // package lists older than the archive (a version replaced since): read them anew, once
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', timeout: 300_000 })
    run()
  }
  rmSync(join(dir, 'partial'), { recursive: true, force: true })
}

/** builds the stand-in under each name the store lacks; how long it took, ms */
export function ensureComposeStandIns(names: string[], base: string, log: (line: string) => void): number {
  const missing = names.map(qualifiedImage).filter((n) => !imageExists(n))
  if (missing.length === 0) return 0
  const started = Date.now()
  const dir = mkdtempSync(join(tmpdir(), 'compose-stand-in-'))
  try {
    const status = join(dir, 'status')
    writeFileSync(status, podman(['run', '--rm', '--network', 'none', ...ulimitArgs(), '--entrypoint', 'cat', base, '/var/lib/dpkg/status']))
    const ctx = join(dir, 'ctx')
    fetchDebs(status, join(ctx, 'debs'))
    writeFileSync(join(ctx, 'entrypoint.sh'), ENTRYPOINT)
    writeFileSync(join(ctx, 'Containerfile'), containerfile(base))
    const tags = missing.flatMap((n) => ['-t', n])
    podman(['build', '--format', 'docker', '--pull=never', '--network', 'none', ...tags, ctx], { timeoutMs: 600_000 })
    log(`compose stand-ins: ${missing.join(', ')} from Debian's ${PACKAGES.join(', ')} on ${base}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return Date.now() - started
}
