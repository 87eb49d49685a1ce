/**
 * Several instances started at once from one checkout (docs/operations.md "Starting and
 * building"): two `npm start` in a fresh copy of the project (no dist/ yet) race to build; both
 * must come up and answer health, neither reading a half-written dist/. The copy keeps the test
 * away from this checkout's own dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/anvil.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const PARTS = ['src', 'host', 'engine', 'tracers', 'config', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json']

describe('two npm start at once in one checkout', () => {
  const children: ChildProcess[] = []
  let dir = ''
  afterAll(() => {
    // each start is its own process group (npm → sh → node): end exactly those
    for (const c of children) if (c.pid && c.exitCode === null) process.kill(-c.pid, 'SIGKILL')
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('both come up; dist/ is whole and no temporary build output is left', async () => {
    dir = mkdtempSync(join(tmpdir(), 'evmsim-start-'))
    for (const p of PARTS) cpSync(join(root, p), join(dir, p), { recursive: true })
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
    const ports = [await freePort(), await freePort()]
    const logs = ['', '']
    ports.forEach((port, i) => {
      const child = spawn('npm', ['start'], {
        cwd: dir,
        detached: true,
        env: { ...process.env, APP_ENV: 'test', PORT: String(port), WORKERS: '1', RPC_URL: '', CACHE_URL: 'memory://', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      child.stdout!.on('data', (d) => (logs[i] += String(d)))
      child.stderr!.on('data', (d) => (logs[i] += String(d)))
      children.push(child)
    })
    const up = async (i: number) => {
      for (;;) {
        if (children[i]!.exitCode !== null) throw new Error(`instance ${i} exited (${children[i]!.exitCode}):\n${logs[i]}`)
        const ok = await fetch(`http://127.0.0.1:${ports[i]}/v1/health`).then(
          (r) => r.ok,
          () => false,
        )
        if (ok) return true
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    expect(await Promise.all([up(0), up(1)])).toEqual([true, true])
    expect(existsSync(join(dir, 'dist/engine/chains/devnet/demoContracts.json'))).toBe(true)
    expect(readdirSync(dir).filter((f) => /^\.dist-|^\.build-lock$/.test(f))).toEqual([])
  }, 300_000)
})
