/**
 * Podman as the container tests run it: rootful, with runc and the cgroupfs manager (crun and the
 * systemd manager do not work in the sandboxes CI runs in), explicit ulimits (podman's defaults
 * ask for more than the host's hard limits allow), host networking (no bridge to set up: each
 * container listens on a port of its own). Missing podman: a loud warning, a failure under CI.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'

export const PODMAN_GLOBALS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs']

/** the host's hard limit of a resource (`/proc/self/limits`), capped: a container may not ask more */
function hardLimit(name: string, cap: number): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(name))
  const hard = line?.slice(26).trim().split(/\s+/)[1]
  return hard && /^\d+$/.test(hard) ? Math.min(Number(hard), cap) : cap
}

/** the ulimits every container runs with: at most the host's, and nproc low enough for runc to set */
export function ulimitArgs(): string[] {
  const nofile = hardLimit('Max open files', 65_536)
  const nproc = hardLimit('Max processes', 4096)
  return ['--ulimit', `nofile=${nofile}:${nofile}`, '--ulimit', `nproc=${nproc}:${nproc}`]
}

export function havePodman(): boolean {
  return spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0
}

/** Throws under CI when podman is missing; locally prints a loud warning and returns false. */
export function requirePodman(): boolean {
  if (havePodman()) return true
  const msg = 'PODMAN MISSING: the image tests need podman (and mmdebstrap) from Debian: .ci/run installs them'
  if (process.env.CI === 'true') throw new Error(msg)
  console.warn(`\n!!!!! ${msg} !!!!!\n`)
  return false
}

/** runs podman to its end; its stdout, or an error carrying its stderr */
export function podman(args: string[], opts: { input?: string; timeoutMs?: number } = {}): string {
  return execFileSync('podman', [...PODMAN_GLOBALS, ...args], {
    encoding: 'utf8',
    input: opts.input,
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 2 ** 20,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

/** podman without waiting: a long build whose output is streamed to the test's log */
export function podmanSpawn(args: string[]): ChildProcess {
  return spawn('podman', [...PODMAN_GLOBALS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

/** whether an image of that name is in the local store */
export function imageExists(name: string): boolean {
  return spawnSync('podman', [...PODMAN_GLOBALS, 'image', 'exists', name], { stdio: 'ignore' }).status === 0
}
