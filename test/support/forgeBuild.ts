/**
 * `forge build --build-info` offline: forge from npm (`@foundry-rs/forge-linux-amd64`) with solc
 * from npm behind a small command-line wrapper (`--version` and `--standard-json` over solc-js),
 * passed as `--use <wrapper>`. Missing locally: a loud warning; under CI=true a failure.
 */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

export function forgeBinary(): string | undefined {
  try {
    const bin = join(dirname(require.resolve('@foundry-rs/forge-linux-amd64/package.json')), 'bin', 'forge')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

export function requireForge(): boolean {
  if (forgeBinary()) return true
  const msg = 'FORGE MISSING: @foundry-rs/forge-linux-amd64 is not installed; forge-backed tests cannot run'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

/** a `solc` command over npm's solc-js, as forge runs it */
export function writeSolcWrapper(dir: string): string {
  const path = join(dir, 'solc-npm.mjs')
  const solcPackage = require.resolve('solc')
  writeFileSync(
    path,
    `#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
const solc = createRequire(import.meta.url)(${JSON.stringify(solcPackage)})
if (process.argv.includes('--version')) {
  console.log('solc, the solidity compiler commandline interface')
  console.log('Version: ' + solc.version())
} else {
  const read = (p) => { try { return { contents: readFileSync(p, 'utf8') } } catch (e) { return { error: String(e) } } }
  process.stdout.write(solc.compile(readFileSync(0, 'utf8'), { import: read }))
}
`,
  )
  chmodSync(path, 0o755)
  return path
}

/** builds `sources` (path under the project → text) with forge; the build-info files it wrote */
export async function forgeBuildInfo(sources: Record<string, string>): Promise<unknown[]> {
  const dir = join(await forgeBuild(sources), 'out', 'build-info')
  return readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
}

/** builds `sources` (path under the project → text) with forge, build-info included; the project folder */
export async function forgeBuild(sources: Record<string, string>): Promise<string> {
  const bin = forgeBinary()
  if (!bin) throw new Error('forge binary not found (npm i @foundry-rs/forge-linux-amd64)')
  const project = mkdtempSync(join(tmpdir(), 'forge-build-'))
  for (const [path, text] of Object.entries(sources)) {
    mkdirSync(dirname(join(project, path)), { recursive: true })
    writeFileSync(join(project, path), text)
  }
  const wrapper = writeSolcWrapper(project)
  await new Promise<void>((resolve, reject) => {
    execFile(
      bin,
      ['build', '--use', wrapper, '--build-info', '--offline', '--root', project],
      { timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } },
      (err, _o, stderr) => (err ? reject(new Error(`forge build failed: ${stderr || err.message}`)) : resolve()),
    )
  })
  return project
}
