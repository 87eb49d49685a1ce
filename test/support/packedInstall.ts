/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack builds dist/), the
 * tarball installed into an empty folder with the registry's dependencies and none of the dev
 * ones, and `evm-sim node` started from that install. One install per test file: it takes the
 * better part of a minute.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../..', import.meta.url))

export function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, timeout: opts.timeoutMs ?? 300_000, maxBuffer: 64 * 2 ** 20, env: opts.env ?? process.env }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    )
  })
}

export interface PackedInstall {
  /** the folder the tarball was installed into */
  dir: string
  tarball: string
  /** node_modules/.bin/evm-sim of the install */
  bin: string
}

export async function packAndInstall(): Promise<PackedInstall> {
  const root = mkdtempSync(join(tmpdir(), 'evm-sim-pack-'))
  const packed = await run('npm', ['pack', '--pack-destination', root, '--silent'], { cwd: REPO, timeoutMs: 600_000 })
  if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`)
  const tarball = join(root, packed.stdout.trim().split('\n').pop()!)
  const dir = join(root, 'app')
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }))
  const installed = await run('npm', ['install', tarball, '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, timeoutMs: 600_000 })
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed: ${installed.stderr}`)
  return { dir, tarball, bin: join(dir, 'node_modules', '.bin', 'evm-sim') }
}

export interface StartedNode {
  url: string
  child: ChildProcess
  /** ms from spawn to the first JSON-RPC answer (eth_chainId, answered while the engine loads) */
  firstAnswerMs: number
  /** ms from spawn to the first answer that needs the engine (eth_blockNumber) */
  readyMs: number
  stdout(): string
  /** SIGINT, as Ctrl-C; the exit code */
  interrupt(): Promise<number | null>
}

/** spawns `evm-sim node`; resolves once the engine answers and, unless --silent, the start-up lines are out */
export async function startNode(bin: string, args: string[], cwd: string): Promise<StartedNode> {
  const port = Number(args[args.indexOf('--port') + 1])
  const url = `http://127.0.0.1:${port}`
  const started = Date.now()
  const child = spawn(bin, ['node', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += String(d)))
  child.stderr!.on('data', (d) => (err += String(d)))
  const deadline = Date.now() + 60_000
  const answered = async (method: string) => {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`evm-sim node exited early: ${err}`)
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":[]}`,
      }).catch(() => undefined)
      if (answer?.ok) return Date.now() - started
      if (Date.now() > deadline) throw new Error(`evm-sim node did not answer ${method} on ${url}: ${err}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const firstAnswerMs = await answered('eth_chainId')
  const readyMs = await answered('eth_blockNumber')
  while (!args.includes('--silent') && !out.includes('Listening on')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`evm-sim node printed no 'Listening on': ${err}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return {
    url,
    child,
    firstAnswerMs,
    readyMs,
    stdout: () => out,
    interrupt: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill('SIGINT')
      }),
  }
}
