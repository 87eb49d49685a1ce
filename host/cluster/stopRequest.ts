/**
 * An HTTP process's side of a graceful stop (host/cluster/primary.ts): resolves when the primary
 * asks this process to stop, or is gone (its IPC channel closed: nobody would ask any more).
 * Listened for from the process's first moment, so a request to stop that arrives while the
 * process is still starting (a replacement, say) is kept, not lost, and acted on once it serves.
 */
import { STOP_MESSAGE, type ToProcess } from '../protocol.js'

export function stopRequested(): Promise<string> {
  return new Promise((resolve) => {
    process.on('message', (msg: ToProcess) => msg?.type === STOP_MESSAGE.type && resolve('primary'))
    process.once('disconnect', () => resolve('primary gone'))
  })
}
