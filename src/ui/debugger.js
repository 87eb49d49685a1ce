// The debugger: the selected frame's execution stepped by source line (next line, step into, step
// out, previous line, first line, run to the revert), each step's opcode, stack, memory and storage
// shown and its line marked in the source pane. Steps come a page at a time from tracer
// `frameSteps` for the frame shown only (stepPages.js); "step into" a call opens the child frame's
// steps, "step out" of its function comes back to the call
// (docs/decisions/0135-debugger-steps-by-line-in-pages.md).
import { h } from './format.js'
import { lineStepper } from './lineStepping.js'
import { openFrameSteps, PAGE_STEPS } from './stepPages.js'
import { stepView } from './stepView.js'

/** the moves: name, button, key (as the tree: ↑ ↓ along, → in, ← out, Home and End) */
const MOVES = [
  ['first', 'First line', 'Home'],
  ['previous', 'Previous line', 'ArrowUp'],
  ['next', 'Next line', 'ArrowDown'],
  ['into', 'Step into', 'ArrowRight'],
  ['out', 'Step out', 'ArrowLeft'],
  ['end', 'Run to the revert', 'End'],
]
const KEYS = Object.fromEntries(MOVES.map(([name, , key]) => [key, name]))

/** the frame's external function as steps name it (`Contract.function`), else as its first step names it */
async function entryOf(node, steps) {
  const { contract, function: fn, type } = node.frame
  if (contract && fn) return `${contract.name}.${fn.name}`
  if (contract && type.startsWith('CREATE')) return `${contract.name}.constructor`
  return (await steps.step(0))?.function
}

/** an internal node's function as steps name it, and how many calls of it its frame made before it */
function activationOf(node) {
  const fn = `${node.frame.function.contract}.${node.frame.function.name}`
  let k = 0
  const walk = (n) => {
    if (n === node) return true
    if (n !== node.owner && n.frame.type !== 'INTERNAL') return false // another frame's calls
    if (n.frame.type === 'INTERNAL' && `${n.frame.function.contract}.${n.frame.function.name}` === fn) k++
    return n.children.some(walk)
  }
  walk(node.owner)
  return { fn, k }
}

function frameName(node) {
  const f = node.frame
  const fn = f.function?.name ?? (f.type.startsWith('CREATE') ? 'constructor' : (f.input?.slice(0, 10) ?? ''))
  return `${f.contract ? `${f.contract.name}::` : `${f.to ?? 'new contract'} `}${fn}`
}

/**
 * `root`: the debugger's element; `pane`: the source pane (sourcePane.js); `trace(tracerConfig)`:
 * the page's trace request with that tracer configuration, answering its `data`; `pageSteps`: the
 * steps a page asks for (default stepPages.js' PAGE_STEPS).
 */
export function createDebugger(root, pane, trace, pageSteps = PAGE_STEPS) {
  const title = h('p', { class: 'frame-name' })
  const buttons = Object.fromEntries(
    MOVES.map(([name, label, key]) => [
      name,
      h('button', { type: 'button', 'data-move': name, 'aria-keyshortcuts': key, onclick: () => void move(name) }, label),
    ]),
  )
  const hint = h('p', { class: 'hint' }, 'Keys in the debugger: ↓ next line, ↑ previous line, → step into, ← step out, Home first line, End run to the revert.')
  const state = h('p', { class: 'dbg-state', role: 'status', 'aria-live': 'polite' })
  const view = h('div', { class: 'step-view' })
  root.replaceChildren(title, h('div', { class: 'controls', role: 'toolbar', 'aria-label': 'Debugger' }, Object.values(buttons)), hint, state, view)
  root.tabIndex = 0
  root.addEventListener('keydown', (e) => {
    const name = KEYS[e.key]
    if (!name || e.target.closest('select, input, button')) return
    e.preventDefault()
    void move(name)
  })

  let stack = [] // the frames stepped into, the one shown last: { node, steps, stepper, at, callStep, revert }
  let opened = 0 // counts open(): an answer for a frame no longer asked for is dropped
  let shownFrame
  let busy = false

  const say = (text, error = false) => {
    state.textContent = text
    state.classList.toggle('error', error)
  }
  const setBusy = (on) => {
    busy = on
    for (const b of Object.values(buttons)) b.disabled = on || stack.length === 0
  }

  /** a frame's first page of steps (its files with it) and its stepper */
  async function enter(node, revertNode = node) {
    const steps = await openFrameSteps(trace, node.path, pageSteps)
    const revert = revertNode.failed ? (revertNode.frame.source ?? node.frame.source) : undefined
    return { node, steps, stepper: lineStepper(steps, await entryOf(node, steps)), at: 0, revert }
  }

  /** step `found.at` of `frame` shown, its line marked in the source pane */
  async function show(frame, found) {
    frame.at = found.at
    const step = await frame.steps.step(frame.at)
    const files = frame.steps.files
    const marks = { revert: frame.revert, current: step.source ?? undefined }
    if (shownFrame !== frame) pane.show(files, marks)
    else pane.mark(marks)
    shownFrame = frame
    title.textContent = stack.map((f) => frameName(f.node)).join(' › ')
    buttons.end.textContent = frame.node.failed ? 'Run to the revert' : 'Run to the end'
    root.dataset.step = String(frame.at)
    root.dataset.frame = JSON.stringify(frame.node.path)
    const total = frame.steps.totalSteps
    say(`step ${frame.at + 1} of ${total}${found.cut ? ' · stopped: no such line within the steps one move reads' : ''}`)
    view.replaceChildren(...stepView(step, files))
  }

  /** `node`'s frame (an internal node: the external frame it runs in) from its first line */
  async function open(node) {
    const ticket = ++opened
    stack = []
    shownFrame = undefined
    setBusy(true)
    title.textContent = frameName(node.owner)
    view.replaceChildren()
    pane.clear('Loading the frame’s steps and sources…')
    say('loading steps…')
    try {
      const frame = await enter(node.owner, node)
      if (ticket !== opened) return
      stack = [frame]
      // an internal frame: its own call's first line, where the steps can tell it
      const call = node === node.owner ? undefined : activationOf(node)
      const start = call && (await frame.stepper.callStart(call.fn, call.k))
      await show(frame, start ?? (await frame.stepper.firstLine()))
      if (frame.steps.files.length === 0) pane.clear('No sources are known for this frame’s code.')
    } catch (e) {
      if (ticket === opened) {
        pane.clear('No steps for this frame.')
        say(e.message, true)
      }
    } finally {
      if (ticket === opened) setBusy(false)
    }
  }

  const moves = {
    first: (f) => f.stepper.firstLine(),
    previous: (f) => f.stepper.previousLine(f.at),
    next: (f) => f.stepper.nextLine(f.at),
    into: (f) => f.stepper.stepInto(f.at),
    out: (f) => f.stepper.stepOut(f.at),
    end: (f) => f.stepper.toEnd(),
  }

  async function move(name) {
    const frame = stack.at(-1)
    if (!frame || busy) return
    const ticket = opened
    setBusy(true)
    try {
      const found = await moves[name](frame)
      if (ticket !== opened) return
      if (found.enter !== undefined) await enterChild(frame, found)
      else if (found.leave) await leave(frame)
      else await show(frame, found)
    } catch (e) {
      if (ticket === opened) say(e.message, true)
    } finally {
      if (ticket === opened) setBusy(false)
    }
  }

  /** the child frame the call at `found.at` opens, from its first line; a call that runs no code: its step */
  async function enterChild(frame, found) {
    const child = frame.node.calls[found.enter]
    let entered
    try {
      entered = child && (await enter(child))
    } catch {
      entered = undefined
    }
    if (!entered) return show(frame, { at: found.at })
    entered.callStep = found.at
    stack.push(entered)
    await show(entered, await entered.stepper.firstLine())
  }

  /** out of the frame: back to the step after the call that opened it, else (the top frame) its end */
  async function leave(frame) {
    if (stack.length > 1) {
      stack.pop()
      const parent = stack.at(-1)
      return show(parent, await parent.stepper.lineFrom(frame.callStep + 1))
    }
    const up = frame.node.parent?.owner
    if (!up) return show(frame, await frame.stepper.toEnd())
    const parent = await enter(up)
    const call = await parent.stepper.callOf(frame.node.path.at(-1))
    stack = [parent]
    await show(parent, call ? await parent.stepper.lineFrom(call.at + 1) : await parent.stepper.firstLine())
  }

  setBusy(false)
  return { open }
}
