/**
 * Temporary files for results too large to hold in memory (a struct log of a million steps is
 * ~356 MB of JSON: more than a string may hold, and far more than objects should). The struct
 * logger writes its JSON text into a sink (tracers/structLogger.ts); the sink here is a file. A
 * finished file travels as a handle `{"$spilledJson": path}` in place of the value it stands for
 * (it crosses the worker boundary as a plain object), and the front door splices the file's bytes
 * into the answer where the handle is (src/respond/jsonAnswer.ts, through host/spill/spillOwnership.ts).
 *
 * Layout: `<os tmpdir>/evm-sim-spill-<pid>/<owner>/<128-bit random hex>.json`. Each engine (the
 * in-process one, each worker thread of a pool, each restart of a worker) writes under its own
 * `owner` directory, so whoever outlives it can remove all it left: the pool removes a worker's
 * directory when the worker exits (crash, timeout, close), an engine its own on close. A run that
 * fails deletes the files it wrote (SpillSession.discard). What no one claimed (an answer whose
 * request is gone) is deleted by age, and the directories of a process that died are deleted at
 * the next start: the host does both (host/spill/spillOwnership.ts).
 *
 * Writes are synchronous and in big chunks (the tracer hands over a megabyte at a time): it runs
 * inside the EVM's step hook, and the file is the page cache's until it is read back moments later.
 *
 * @example
 * const spills = openSpillSession({ owner: 'main-1a2b', thresholdBytes: 4 << 20, maxBytes: 2 << 30 })
 * createTracers(config, { structLogSpill: spills.structLogSpill })
 * // on failure: spills.discard()
 */
import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { StructLogSink, StructLogSpill } from '../../../tracers/structLogger.js'

/** the key of a spilled-file handle: `{"$spilledJson": "/tmp/…/….json"}` */
export const SPILL_KEY = '$spilledJson'
export type SpilledJson = { [SPILL_KEY]: string }

export interface SpillOptions {
  /** this engine's directory under the process's spill root (one per engine; see newSpillOwner) */
  owner: string
  /** struct logs whose JSON passes this many bytes go to a file (0: all of them) */
  thresholdBytes: number
  /** a struct log's file may not pass this many bytes (the disk cap; past it: PAYLOAD_TOO_LARGE) */
  maxBytes: number
}

/**
 * Below this a struct log stays in memory: building it costs less than a file. Above it, with
 * steps written as bytes, the file wins in process for a contract's steps (`npx tsx
 * bench/spilledStructLog.ts`: 0.95× the in-memory time at 170 kB, 0.87× at 934 kB) and loses a
 * little for very short ones just past it (1.27× at 82 kB, about a millisecond; 1.06× at 247 kB).
 * In a worker the objects would also cost the main thread a structured-clone copy and a print
 * (host/workers/workerPool.ts).
 */
export const DEFAULT_SPILL_THRESHOLD_BYTES = 64 * 2 ** 10
/** the spill root of a process is `<os tmpdir>/<prefix><pid>` */
export const SPILL_ROOT_PREFIX = 'evm-sim-spill-'
/** the name of a spilled file: 128 random bits */
export const SPILL_FILE_NAME = /^[0-9a-f]{32}\.json$/
/** the name of an owner's directory */
export const SPILL_OWNER_NAME = /^[A-Za-z0-9_-]{1,64}$/

let root: string | undefined

/**
 * the spill directory of this process (worker threads share it: same pid). Named once: every
 * traced run asks, and `os.tmpdir()` reads the environment each time (0.5% of a traced swap)
 */
export function spillRoot(): string {
  root ??= join(tmpdir(), `${SPILL_ROOT_PREFIX}${process.pid}`)
  return root
}

/** a fresh owner name: `prefix` plus random bits, so engines of one process never share one */
export function newSpillOwner(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`
}

export interface SpillSession {
  /** the struct logger's sink factory: every open() is a new file of this session (none: in memory) */
  structLogSpill: StructLogSpill | undefined
  /** files opened so far (a position for discard) */
  count(): number
  /** deletes the files opened since `from` (default: all): their run failed */
  discard(from?: number): void
}

interface FileSink extends StructLogSink {
  remove(): void
}

function openFileSink(dir: string): FileSink {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const path = join(dir, `${randomBytes(16).toString('hex')}.json`)
  let fd: number | undefined = openSync(path, 'wx', 0o600)
  const close = () => {
    if (fd === undefined) return
    closeSync(fd)
    fd = undefined
  }
  return {
    write(chunk) {
      // a regular file takes it all at once unless the disk is full (then writeSync throws)
      for (let off = 0; off < chunk.length; ) off += writeSync(fd!, chunk, off, chunk.length - off)
    },
    finish() {
      close()
      const handle: SpilledJson = { [SPILL_KEY]: path }
      return handle
    },
    remove() {
      try {
        close()
      } catch {
        // already unusable: the file goes all the same
      }
      rmSync(path, { force: true })
    },
  }
}

/** the files of one engine call; without options, struct logs stay in memory */
export function openSpillSession(opts: SpillOptions | undefined): SpillSession {
  if (!opts) return { structLogSpill: undefined, count: () => 0, discard: () => {} }
  if (!SPILL_OWNER_NAME.test(opts.owner)) throw new Error(`spill owner ${JSON.stringify(opts.owner)}: letters, digits, - and _ only`)
  const dir = join(spillRoot(), opts.owner)
  const sinks: FileSink[] = []
  return {
    structLogSpill: {
      thresholdBytes: opts.thresholdBytes,
      maxBytes: opts.maxBytes,
      open() {
        const sink = openFileSink(dir)
        sinks.push(sink)
        return sink
      },
    },
    count: () => sinks.length,
    discard(from = 0) {
      for (const sink of sinks.splice(from)) sink.remove()
    },
  }
}

/** deletes everything an engine (an owner) left; for a worker that exited, an engine closed */
export function removeSpillOwner(owner: string): void {
  if (!SPILL_OWNER_NAME.test(owner)) return
  rmSync(join(spillRoot(), owner), { recursive: true, force: true })
}
