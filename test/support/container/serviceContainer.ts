/**
 * One container of the service's image, run as an operator runs it: read-only root file system,
 * the spill directory a tmpfs named by TMPDIR, host networking on a port of its own. Its JSON log
 * lines are followed (`podman logs -f`), and it is removed when the test file ends.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createInterface } from 'node:readline'
import { podman, ulimitArgs } from './podman.js'

export interface ServiceContainer {
  name: string
  url: string
  /** the JSON lines it logged so far */
  logs: Record<string, unknown>[]
  /** its exit code, once it has stopped */
  exited: Promise<number>
}

const running = new Set<string>()

/** the spill directory the containers of the tests get: the only writable path */
export const SPILL_DIR = '/spill'

export function runService(image: string, port: number, env: Record<string, string> = {}, extra: string[] = []): ServiceContainer {
  const name = `evm-sim-test-${randomBytes(4).toString('hex')}`
  const envArgs = Object.entries({ PORT: String(port), TMPDIR: SPILL_DIR, ...env }).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  podman([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    ...ulimitArgs(),
    '--read-only',
    '--read-only-tmpfs=false',
    '--tmpfs',
    `${SPILL_DIR}:rw,size=1g,mode=1777`,
    ...envArgs,
    ...extra,
    image,
  ])
  running.add(name)
  const logs: Record<string, unknown>[] = []
  const follower = spawn('podman', ['logs', '-f', name], { stdio: ['ignore', 'pipe', 'ignore'] })
  createInterface({ input: follower.stdout }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>)
    } catch {
      logs.push({ msg: line })
    }
  })
  // the log ends when the container stops; its exit code then (-1: removed meanwhile)
  const exitCode = () => {
    try {
      return Number(podman(['wait', name]).trim())
    } catch {
      return -1
    }
  }
  const exited = new Promise<number>((resolve) => follower.on('exit', () => resolve(exitCode())))
  return { name, url: `http://127.0.0.1:${port}`, logs, exited }
}

/** waits until `path` answers 200; the time it took, ms */
export async function answers(url: string, path: string, ms = 60_000): Promise<number> {
  const started = Date.now()
  for (;;) {
    const ok = await fetch(`${url}${path}`).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return Date.now() - started
    if (Date.now() - started > ms) throw new Error(`${url}${path} did not answer 200 within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** removes every container this file started */
export function removeServices(): void {
  for (const name of running) {
    try {
      podman(['rm', '-f', '-t', '0', name])
    } catch {
      // already gone
    }
  }
  running.clear()
}
