/** `evm-sim <args>` run from the sources (through tsx), as the package's command runs: its exit code and output */
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

export const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
export const TSX = createRequire(import.meta.url).resolve('tsx')

export function evmSim(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', TSX, CLI_MAIN, ...args], { timeout: 120_000, env }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    )
  })
}
