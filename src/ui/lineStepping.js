// The debugger's moves by source line over one frame's steps
// (docs/decisions/0135-debugger-steps-by-line-in-pages.md). A step stops the debugger when the
// source map gives it a line (where no source is known, every step: it steps by instruction). A
// step's depth tells stepping over a call from stepping into it and out of it: the internal calls
// open at the step (`functionDepth`), 0 in the frame's external function. No move reads more than
// MAX_SCAN steps.

/** steps one move may read before it stops where it got to (64 pages of 256) */
export const MAX_SCAN = 16_384

const sourceLine = (s) => (s?.source ? `${s.source.file}:${s.source.line}` : undefined)
/** a frame whose code has no sources known steps by instruction: each step is a line of its own */
const ownLine = (s) => (s ? `#${s.step}` : undefined)

/**
 * `steps`: { totalSteps, files, step(i) → Promise<step> } (stepPages.js); `entry`: the frame's
 * external function as steps name it (`Contract.function`). Each move answers { at } (the step to show), { enter, at } (step `at` opens
 * child frame `enter`: show its steps) or { leave: true } (the move leaves the frame), and `cut`
 * when it stopped at MAX_SCAN.
 */
export function lineStepper(steps, entry) {
  const lineOf = steps.files.length > 0 ? sourceLine : ownLine
  // the tracer's count of open internal calls; a page without it (no sources): by the function's name
  const depth = (s) => s.functionDepth ?? (s.function && s.function !== entry ? 1 : 0)
  const last = steps.totalSteps - 1

  /** the first step from `from` going `dir` (+1, -1) that `test` takes, else where the scan ended */
  async function find(from, dir, test) {
    let i = from
    for (let n = 0; i >= 0 && i <= last; i += dir, n++) {
      if (n === MAX_SCAN) return { at: i - dir, cut: true }
      const s = await steps.step(i)
      if (test(s)) return { at: i, step: s }
    }
    return { at: Math.min(last, Math.max(0, i - dir)), end: true }
  }

  return {
    /** the frame's first step that has a line (its first step where none has) */
    async firstLine() {
      const found = await find(0, 1, (s) => lineOf(s))
      return found.end ? { at: 0 } : found
    },
    /** the next line of this function or a caller's; calls made on the way are run through */
    async nextLine(at) {
      const c = await steps.step(at)
      const found = await find(at + 1, 1, (s) => lineOf(s) && (depth(s) < depth(c) || (depth(s) === depth(c) && lineOf(s) !== lineOf(c))))
      return found.end ? { at: last } : found
    },
    /** the next line wherever it is: into an internal function, or into the child frame a call on this line opens */
    async stepInto(at) {
      const c = await steps.step(at)
      if (c.child !== undefined) return { enter: c.child, at }
      const found = await find(at + 1, 1, (s) => s.child !== undefined || (lineOf(s) && lineOf(s) !== lineOf(c)))
      if (found.end) return { at: last }
      if (found.step?.child !== undefined && (!lineOf(found.step) || lineOf(found.step) === lineOf(c))) return { enter: found.step.child, at: found.at }
      return found
    },
    /** the first line after the current function returned: in its caller, or out of the frame */
    async stepOut(at) {
      const d = depth(await steps.step(at))
      if (d === 0) return { leave: true }
      const found = await find(at + 1, 1, (s) => lineOf(s) && depth(s) < d)
      return found.end ? { leave: true } : found
    },
    /** the line `nextLine` came from: the start of the previous line of this function or a caller's */
    async previousLine(at) {
      const c = await steps.step(at)
      const found = await find(at - 1, -1, (s) => lineOf(s) && depth(s) <= depth(c) && lineOf(s) !== lineOf(c))
      if (found.end || found.cut) return { at: (await this.firstLine()).at }
      return this.startOfLine(found.at)
    },
    /** back over the steps of the line at `at` (and the calls it made) to the first of them */
    async startOfLine(at) {
      const s = await steps.step(at)
      const d = depth(s)
      const before = await find(at - 1, -1, (p) => lineOf(p) && depth(p) <= d && lineOf(p) !== lineOf(s))
      const from = before.end ? 0 : before.at + 1
      return find(from, 1, (p) => lineOf(p) === lineOf(s) && depth(p) === d)
    },
    /** the frame's last step: where a failing frame reverted */
    async toEnd() {
      return { at: last }
    },
    /** the first line of the `k`-th call (from 0) of internal function `fn` (`Contract.function`) */
    async callStart(fn, k) {
      let prev
      let entered = -1
      const found = await find(0, 1, (s) => {
        if (s.function === fn && (prev?.function !== fn || depth(prev) < depth(s))) entered++
        prev = s
        return entered === k && lineOf(s)
      })
      return found.step ? found : undefined
    },
    /** the step that opens child frame `child` (its index in the frame's calls) */
    async callOf(child) {
      const found = await find(0, 1, (s) => s.child === child)
      return found.step ? found : undefined
    },
    /** the first step at or after `at` that has a line (after a child frame returned) */
    async lineFrom(at) {
      const found = await find(at, 1, (s) => lineOf(s))
      return found.end ? { at: last } : found
    },
  }
}
