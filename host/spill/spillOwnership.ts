/**
 * Who owns a spilled file once its engine has written it (engine/platform/spill/spillFiles.ts lays the
 * files out and writes them): the front door claims the file named in an answer and streams it
 * (src/respond/jsonAnswer.ts), and the host sweeps what nobody claimed — files older than a
 * request could wait for, and the directories of processes that died before they cleaned up
 * (host/workers/index.ts runs both).
 */
import { closeSync, fstatSync, openSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SPILL_FILE_NAME, SPILL_OWNER_NAME, SPILL_ROOT_PREFIX, spillRoot } from '../../engine/platform/spill/spillFiles.js'

/**
 * Front door: takes over a spilled file named in an answer. Only a file of this process's spill
 * root with a random name counts (a handle's path is data: a caller cannot make us read another
 * file by putting such an object in a decoded value); anything else answers undefined. The file is
 * opened and unlinked at once, so from here on nothing is left on disk once the descriptor closes.
 * A handle of ours whose file is gone (its worker was replaced meanwhile) throws.
 */
export function claimSpilled(path: string): { fd: number; bytes: number } | undefined {
  const root = spillRoot()
  if (!path.startsWith(`${root}/`)) return undefined
  const rest = path.slice(root.length + 1).split('/')
  if (rest.length !== 2 || !SPILL_OWNER_NAME.test(rest[0]!) || !SPILL_FILE_NAME.test(rest[1]!)) return undefined
  const fd = openSync(path, 'r')
  try {
    const { size } = fstatSync(fd)
    unlinkSync(path)
    return { fd, bytes: size }
  } catch (e) {
    closeSync(fd)
    throw e
  }
}

/** deletes spilled files older than `maxAgeMs` that nobody claimed (their request went away) */
export function sweepOldSpills(maxAgeMs: number, now = Date.now()): number {
  let removed = 0
  for (const owner of list(spillRoot())) {
    const dir = join(spillRoot(), owner)
    for (const name of list(dir)) {
      const path = join(dir, name)
      try {
        if (now - statSync(path).mtimeMs > maxAgeMs) {
          rmSync(path, { force: true })
          removed++
        }
      } catch {
        // claimed or removed meanwhile
      }
    }
  }
  return removed
}

/** deletes the spill directories of processes that no longer run (killed before they cleaned up) */
export function sweepStaleSpills(): void {
  for (const name of list(tmpdir())) {
    if (!name.startsWith(SPILL_ROOT_PREFIX)) continue
    const pid = Number(name.slice(SPILL_ROOT_PREFIX.length))
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue
    rmSync(join(tmpdir(), name), { recursive: true, force: true })
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it runs, as another user
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
