// One external frame's own execution steps, fetched a page at a time from tracer `frameSteps`:
// the first page comes with the frame's source files, every other page is asked for only when the
// debugger reaches it, and only a few pages are kept
// (docs/decisions/0135-debugger-steps-by-line-in-pages.md).

/** steps a page asks for (the tracer's default page) */
export const PAGE_STEPS = 256
/** pages kept at once; the one farthest from the last asked for goes first */
const KEPT_PAGES = 16

/**
 * `trace(tracerConfig)` runs the page's own trace request with that tracer configuration and
 * answers its `data`; `path` is the frame's path of indices into the callTracer `calls`.
 * Resolves once the first page is here: { frame, totalSteps, files, step(i), page(i) }.
 */
export async function openFrameSteps(trace, path, pageSteps = PAGE_STEPS) {
  const pages = new Map() // page number → steps
  const pending = new Map() // page number → promise of its steps
  /** page `n`; an answer cut short (the tracer's cap on a page's bytes) goes on from its `nextStep` */
  const ask = async (n, withFiles) => {
    const end = (n + 1) * pageSteps
    const first = (await trace({ frameSteps: { frame: path, fromStep: n * pageSteps, maxSteps: pageSteps, withFiles } })).frameSteps
    let next = first.nextStep
    while (next !== null && next < end) {
      const more = (await trace({ frameSteps: { frame: path, fromStep: next, maxSteps: end - next } })).frameSteps
      first.steps.push(...more.steps)
      next = more.steps.length ? more.nextStep : null
    }
    return first
  }
  const first = await ask(0, true)
  pages.set(0, first.steps)

  const keep = (n, steps) => {
    pages.set(n, steps)
    if (pages.size <= KEPT_PAGES) return
    const farthest = [...pages.keys()].sort((a, b) => Math.abs(b - n) - Math.abs(a - n))[0]
    pages.delete(farthest)
  }
  /** the steps of page `n`, asked for once however many callers wait for it */
  const page = (n) => {
    if (pages.has(n)) return Promise.resolve(pages.get(n))
    if (!pending.has(n)) {
      const p = ask(n, false)
        .then((answer) => {
          keep(n, answer.steps)
          return answer.steps
        })
        .finally(() => pending.delete(n))
      pending.set(n, p)
    }
    return pending.get(n)
  }
  const totalSteps = first.totalSteps
  return {
    path,
    frame: first.frame,
    totalSteps,
    files: first.files ?? [],
    /** step `i` (0 ≤ i < totalSteps), its page fetched if it is not here */
    async step(i) {
      if (i < 0 || i >= totalSteps) return undefined
      const steps = await page(Math.floor(i / pageSteps))
      return steps[i % pageSteps]
    },
    /** whether step `i` is here without a request */
    has: (i) => pages.has(Math.floor(i / pageSteps)),
  }
}
