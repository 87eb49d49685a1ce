// One execution step as the debugger shows it: where it is in the source, the opcode, and the
// machine as geth's structLogger prints it — the stack (top first), memory by 32-byte word and
// the storage slots the frame has read or written so far.
import { grouped, h } from './format.js'

/** memory words drawn at most; the rest is counted */
const MEMORY_WORDS = 512

const hex = (n, width) => `0x${n.toString(16).padStart(width, '0')}`

/** the line's own text from the frame's files, when they came with its steps */
function lineText(files, source) {
  const content = files.find((f) => f.path === source.file)?.content
  return content?.split('\n')[source.line - 1]?.trim()
}

function where(step, files) {
  if (!step.source) return h('dd', { class: 'muted' }, 'no source line (code the compiler added)')
  const { file, line, column } = step.source
  const text = lineText(files, step.source)
  return h('dd', {}, h('span', { class: 'mono' }, `${file}:${line}:${column}`), text ? h('code', { class: 'line-text' }, text) : '')
}

function facts(step, files) {
  const dl = h('dl', { class: 'step-facts' })
  const add = (k, v) => dl.append(h('dt', {}, k), typeof v === 'object' ? v : h('dd', { class: 'mono' }, v))
  add('line', where(step, files))
  if (step.function) add('function', step.function)
  add('opcode', h('dd', { class: 'mono' }, h('b', { class: 'op' }, step.op), ` at pc ${step.pc}`))
  add('gas', `${grouped(step.gas)} left · this step ${grouped(step.gasCost)}`)
  if (step.child !== undefined) add('call', `opens child frame #${step.child}: step into shows its steps`)
  if (step.error) add('error', h('dd', { class: 'mono revert' }, step.error))
  return dl
}

function stackList(stack = []) {
  if (!stack.length) return h('p', { class: 'muted' }, 'empty')
  // geth lists the stack bottom first: the top is its last entry
  const top = [...stack].reverse()
  return h(
    'ol',
    { class: 'stack mono', start: 0 },
    top.map((word) => h('li', { title: word }, word)),
  )
}

function memoryText(memory = []) {
  if (!memory.length) return h('p', { class: 'muted' }, 'empty')
  const rows = memory.slice(0, MEMORY_WORDS).map((word, i) => `${hex(i * 32, 4)}  ${word}`)
  if (memory.length > MEMORY_WORDS) rows.push(`… ${grouped(memory.length - MEMORY_WORDS)} more words`)
  return h('pre', { class: 'memory mono' }, rows.join('\n'))
}

function storageTable(storage = {}) {
  const slots = Object.entries(storage)
  if (!slots.length) return h('p', { class: 'muted' }, 'none read or written yet')
  return h(
    'table',
    { class: 'storage mono' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'slot'), h('th', { scope: 'col' }, 'value'))),
    h(
      'tbody',
      {},
      slots.map(([slot, value]) => h('tr', { 'data-slot': slot }, h('td', { title: slot }, slot), h('td', { title: value }, value))),
    ),
  )
}

/** the step's facts, stack, memory and storage; `files`: the frame's source files */
export function stepView(step, files) {
  return [
    facts(step, files),
    h('h3', {}, `Stack (${step.stack?.length ?? 0}, top first)`),
    stackList(step.stack),
    h('h3', {}, `Memory (${grouped((step.memory?.length ?? 0) * 32)} bytes)`),
    memoryText(step.memory),
    h('h3', {}, 'Storage read and written so far'),
    storageTable(step.storage),
  ]
}
