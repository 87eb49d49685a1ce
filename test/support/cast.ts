/**
 * Foundry's `cast` (npm `@foundry-rs/cast-linux-amd64`, its binary run directly, as Anvil is).
 * Missing locally: the test says so loudly; under CI=true a missing cast is a failure.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

export function castBinary(): string | undefined {
  try {
    const bin = join(dirname(require.resolve('@foundry-rs/cast-linux-amd64/package.json')), 'bin', 'cast')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

export function requireCast(): boolean {
  if (castBinary()) return true
  const msg = 'CAST MISSING: @foundry-rs/cast-linux-amd64 is not installed; cast-backed tests cannot run'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

/** runs cast with `args`; resolves stdout, rejects with stderr on a non-zero exit */
export function cast(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const bin = castBinary()
  if (!bin) return Promise.reject(new Error('cast binary not found (npm i @foundry-rs/cast-linux-amd64)'))
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { timeout: opts.timeoutMs ?? 60_000, env: { ...process.env, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' } },
      (err, stdout, stderr) => {
        if (err) reject(Object.assign(new Error(`cast ${args[0]} failed: ${stderr || err.message}`), { stderr, stdout }))
        else resolve(stdout.trim())
      },
    )
  })
}
