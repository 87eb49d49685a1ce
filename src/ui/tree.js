// The collapsible call tree. Rows are built only when their parent opens, so a trace of
// thousands of frames costs what is on screen; levels below OPEN_DEPTH start closed except the
// failing path. Keyboard: the WAI-ARIA tree pattern with one roving tabindex.
// Where the service knows a contract's sources, a frame reads `Contract::function(…)` and
// internal function calls (type INTERNAL) sit among the calls as rows of their own, set apart by
// a dashed badge and no addresses (docs/decisions/0121).
import { argsLine, big, grouped, h, short, units } from './format.js'
import { sourceBlock } from './source.js'

const OPEN_DEPTH = 2
/** children rendered per batch; "show more" adds the next batch */
const BATCH = 200

/** a node per frame: parent links, the failing path, labels */
export function buildModel(root) {
  let count = 0
  let internal = 0
  const walk = (frame, parent, depth) => {
    if (frame.type === 'INTERNAL') internal++
    // an internal frame still open where its frame reverted is `reverted`, never `error`
    const node = { frame, parent, depth, children: [], failed: Boolean(frame.error || frame.reverted), failPath: false, id: count++ }
    externalPath(node)
    node.children = (frame.calls ?? []).map((c) => walk(c, node, depth + 1))
    return node
  }
  const top = walk(root, undefined, 0)
  // the failing path: from the root down through failed children to the first frame whose
  // own children did not fail (where the revert started)
  let n = top
  while (n?.failed) {
    n.failPath = true
    n = n.children.find((c) => c.failed)
  }
  return { root: top, count, internal }
}

/**
 * `owner`: the external frame a node runs in (itself if external); an external node's `path`
 * indexes the callTracer `calls` arrays (internal frames skipped), as tracer `frameSteps` names a
 * frame, and its `calls` lists its external children in that order.
 */
function externalPath(node) {
  if (node.frame.type === 'INTERNAL') {
    node.owner = node.parent?.owner
    return
  }
  const up = node.parent?.owner
  node.owner = node
  node.calls = []
  node.path = up ? [...up.path, up.calls.length] : []
  up?.calls.push(node)
}

const labelOf = (frame, side) => frame.labels?.[side]

function who(address, label) {
  if (!address) return h('span', { class: 'addr muted' }, '(new contract)')
  return h('span', { class: 'addr', title: address }, label ? h('b', {}, label) : null, label ? ` ${short(address)}` : short(address))
}

/** `DemoToken::` before the function, the file on hover, where the frame's code is known */
function contractPrefix(frame) {
  const name = frame.type === 'INTERNAL' ? frame.function.contract : frame.contract?.name
  if (!name) return null
  return h('span', { class: 'contract', title: frame.contract?.file ?? name }, name, h('span', { class: 'sep' }, '::'))
}

function callText(frame) {
  const f = frame.function
  if (frame.type === 'INTERNAL')
    return h('span', { class: 'fn internal-fn', title: `${f.contract}.${f.signature} (internal)` }, h('b', {}, f.name), `(${argsLine(f.args)})`)
  if (f)
    return h(
      'span',
      { class: 'fn', title: f.signature + (f.alternatives ? `\nalso matches: ${f.alternatives.join(', ')}` : '') },
      h('b', {}, f.name),
      `(${argsLine(f.args)})`,
      f.source === 'signatureDb' ? h('span', { class: 'tag', title: 'from the offline signature database' }, '4byte') : null,
      f.alternatives ? h('span', { class: 'tag warn' }, `+${f.alternatives.length} alt`) : null,
    )
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') return h('span', { class: 'fn' }, h('b', {}, 'constructor'))
  if (!frame.input || frame.input === '0x') return h('span', { class: 'fn muted' }, big(frame.value) > 0n ? 'receive()' : '()')
  return h('span', { class: 'fn muted', title: frame.input }, frame.input.slice(0, 10))
}

function outcome(frame) {
  if (frame.reverted) return h('span', { class: 'revert', title: 'still running when its frame reverted' }, '✖ reverted')
  if (frame.error) {
    const reason = frame.revert?.reason ?? frame.revertReason ?? frame.error
    return h('span', { class: 'revert', title: frame.revert?.signature ?? frame.error }, `✖ ${reason}`)
  }
  if (frame.result) return h('span', { class: 'result' }, `→ (${argsLine(frame.result)})`)
  return null
}

function gasBar(node) {
  const used = big(node.frame.gasUsed)
  const parentUsed = node.parent ? big(node.parent.frame.gasUsed) : used
  const pct = parentUsed > 0n ? Number((used * 1000n) / parentUsed) / 10 : 100
  const given = node.frame.type === 'INTERNAL' ? 'from entering the function to leaving it' : `of ${grouped(big(node.frame.gas))} given`
  return h(
    'span',
    { class: 'gas', title: `gas used ${grouped(used)} ${given}; ${pct}% of the parent's` },
    h('span', { class: 'bar' }, h('span', { class: 'fill', style: `width:${Math.min(100, pct)}%` })),
    grouped(used),
  )
}

function logRow(log) {
  const d = log.decoded
  const text = d
    ? [
        h('span', { class: 'tag ev' }, 'event'),
        h('span', {}, h('b', {}, d.name), `(${argsLine(d.args)})`),
        d.summary ? h('span', { class: 'muted' }, d.summary) : null,
      ]
    : [
        h('span', { class: 'tag ev' }, 'log'),
        h(
          'span',
          { class: 'muted', title: log.topics.join('\n') },
          `${(log.topics[0] ?? 'anonymous').slice(0, 18)}… ${log.data.length > 2 ? `${(log.data.length - 2) / 2} bytes` : ''}`,
        ),
      ]
  return h(
    'li',
    { class: 'log', role: 'none' },
    h(
      'div',
      { class: 'row', title: d?.signature ?? '' },
      h('span', { class: 'toggle' }),
      h('span', { class: 'main' }, ...text.filter(Boolean).flatMap((t) => [t, ' ']), who(log.address, undefined)),
      h('span'),
    ),
  )
}

/** an external frame's row: type, from → to, the call and its outcome */
function externalCall(f) {
  return [
    h('span', { class: `type t-${f.type}` }, f.type),
    ' ',
    who(f.from, labelOf(f, 'from')),
    h('span', { class: 'arrow' }, ' → '),
    who(f.to, labelOf(f, 'to')),
    f.implementation ? h('span', { class: 'tag', title: `proxy to ${f.implementation}` }, 'proxy') : null,
    ' ',
    contractPrefix(f),
    callText(f),
    big(f.value) > 0n ? [' ', h('span', { class: 'value' }, units(big(f.value)))] : null,
    ' ',
    outcome(f),
  ]
}

/** an internal call's row: no addresses (it runs in its frame's contract), the function as forge names it */
function internalCall(f) {
  const result = f.function.result ? h('span', { class: 'result' }, `→ (${argsLine(f.function.result)})`) : null
  return [
    h('span', { class: 'type t-INTERNAL', title: 'an internal function call' }, 'internal'),
    ' ',
    contractPrefix(f),
    callText(f),
    ' ',
    outcome(f) ?? result,
  ]
}

export function renderTree(ul, model, { onSelect }) {
  ul.replaceChildren()
  const rows = new Map() // li → node

  function row(node) {
    const f = node.frame
    const hasKids = node.children.length > 0 || (f.logs?.length ?? 0) > 0
    const li = h('li', {
      role: 'treeitem',
      tabindex: -1,
      class: `${node.failed ? 'failed' : ''} ${node.failPath ? 'fail-path' : ''} ${f.type === 'INTERNAL' ? 'internal' : ''}`,
      'aria-level': node.depth + 1,
      'data-id': node.id,
    })
    if (hasKids) li.setAttribute('aria-expanded', 'false')
    const line = h(
      'div',
      { class: 'row' },
      h('span', { class: 'toggle', 'aria-hidden': 'true' }, hasKids ? '▸' : ''),
      h('span', { class: 'main' }, ...(f.type === 'INTERNAL' ? internalCall(f) : externalCall(f))),
      gasBar(node),
    )
    line.addEventListener('click', () => {
      if (hasKids) toggle(li, node)
      focus(li)
    })
    li.append(line)
    rows.set(li, node)
    return li
  }

  function fillChildren(li, node) {
    const group = h('ul', { role: 'group' })
    // logs sit between the calls: `position` = the number of calls made before the log
    const logs = [...(node.frame.logs ?? [])]
    const items = []
    node.children.forEach((child, i) => {
      while (logs.length && Number(logs[0].position) <= i) items.push({ log: logs.shift() })
      items.push({ child })
    })
    for (const log of logs) items.push({ log })
    let shown = 0
    const more = () => {
      const batch = items.slice(shown, shown + BATCH)
      shown += batch.length
      for (const it of batch) group.insertBefore(it.log ? logRow(it.log) : openDefault(row(it.child), it.child), moreButton)
      if (shown >= items.length) moreButton.remove()
      else moreButton.firstChild.textContent = `show ${Math.min(BATCH, items.length - shown)} more of ${items.length - shown}`
    }
    const moreButton = h('li', { role: 'none', class: 'more' }, h('button', { type: 'button', onclick: () => more() }))
    group.append(moreButton)
    more()
    li.append(group)
  }

  function setOpen(li, node, open) {
    if (li.getAttribute('aria-expanded') === null) return
    if (open && !li.querySelector(':scope > ul')) fillChildren(li, node)
    li.setAttribute('aria-expanded', String(open))
    li.querySelector(':scope > .row > .toggle').textContent = open ? '▾' : '▸'
  }
  const toggle = (li, node) => setOpen(li, node, li.getAttribute('aria-expanded') !== 'true')
  function openDefault(li, node) {
    if (node.depth < OPEN_DEPTH || node.failPath) setOpen(li, node, true)
    return li
  }

  let current
  function focus(li) {
    if (current) current.tabIndex = -1
    current = li
    li.tabIndex = 0
    li.focus({ preventScroll: true })
    li.querySelector(':scope > .row').scrollIntoView({ block: 'nearest' })
    ul.querySelectorAll('.selected').forEach((e) => e.classList.remove('selected'))
    li.classList.add('selected')
    onSelect(rows.get(li).frame, rows.get(li))
  }
  const visible = () => [...ul.querySelectorAll('[role=treeitem]')].filter((li) => li.offsetParent !== null)

  ul.addEventListener('keydown', (e) => {
    const li = e.target.closest('[role=treeitem]')
    if (!li) return
    const node = rows.get(li)
    const list = visible()
    const i = list.indexOf(li)
    const expanded = li.getAttribute('aria-expanded')
    switch (e.key) {
      case 'ArrowDown':
        if (list[i + 1]) focus(list[i + 1])
        break
      case 'ArrowUp':
        if (i > 0) focus(list[i - 1])
        break
      case 'Home':
        focus(list[0])
        break
      case 'End':
        focus(list[list.length - 1])
        break
      case 'ArrowRight':
        if (expanded === 'false') setOpen(li, node, true)
        else if (expanded === 'true') {
          const first = li.querySelector(':scope > ul > [role=treeitem]')
          if (first) focus(first)
        }
        break
      case 'ArrowLeft':
        if (expanded === 'true') setOpen(li, node, false)
        else {
          const up = li.parentElement.closest('[role=treeitem]')
          if (up) focus(up)
        }
        break
      case 'Enter':
      case ' ':
        if (expanded !== null) toggle(li, node)
        break
      default:
        return
    }
    e.preventDefault()
  })

  const top = openDefault(row(model.root), model.root)
  ul.append(top)
  top.tabIndex = 0
  current = top
  onSelect(model.root.frame, model.root)
  top.classList.add('selected')
}

const shown = (v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))

const fields = () => {
  const dl = h('dl')
  const add = (k, v) => {
    if (v !== undefined && v !== null && v !== '') dl.append(h('dt', {}, k), h('dd', {}, v))
  }
  return { dl, add }
}

/** the frame's fields, whole, for the side pane; a failed frame's source line before its raw input and output */
export function renderDetail(div, frame) {
  const { dl, add } = fields()
  const raw = fields()
  if (frame.type === 'INTERNAL') internalDetail(add, frame)
  else {
    externalDetail(add, frame)
    raw.add('input', frame.input)
    raw.add('output', frame.output)
  }
  div.replaceChildren(dl, frame.source ? sourceBlock(frame.source) : '', raw.dl)
}

function internalDetail(add, frame) {
  const f = frame.function
  add('type', 'INTERNAL')
  add('contract', f.contract)
  add('address', frame.to)
  add('gas', `${grouped(big(frame.gasUsed))} used from entering the function to leaving it`)
  add('function', f.signature)
  for (const [k, v] of Object.entries(f.args ?? {})) add(`  ${k}`, shown(v))
  for (const [k, v] of Object.entries(f.result ?? {})) add(`return ${k}`, shown(v))
  if (frame.reverted) add('reverted', 'still running when its frame reverted')
}

function externalDetail(add, frame) {
  add('type', frame.type)
  if (frame.contract) add('contract', `${frame.contract.name} (${frame.contract.file})`)
  add('from', `${frame.from}${frame.labels?.from ? ` (${frame.labels.from})` : ''}`)
  add('to', frame.to ? `${frame.to}${frame.labels?.to ? ` (${frame.labels.to})` : ''}` : undefined)
  add('implementation', frame.implementation)
  if (big(frame.value) > 0n) add('value', `${units(big(frame.value))} (${grouped(big(frame.value))} wei)`)
  add('gas', `${grouped(big(frame.gasUsed))} used of ${grouped(big(frame.gas))}`)
  if (frame.function) {
    add('function', `${frame.function.signature} [${frame.function.source}${frame.function.exact === false ? ', inexact' : ''}]`)
    for (const [k, v] of Object.entries(frame.function.args)) add(`  ${k}`, shown(v))
    if (frame.function.alternatives) add('also matches', frame.function.alternatives.join(', '))
  }
  if (frame.result) for (const [k, v] of Object.entries(frame.result)) add(`return ${k}`, shown(v))
  add('error', frame.error)
  if (frame.revert) add('revert', `${frame.revert.reason} [${frame.revert.signature}]`)
  else add('revert reason', frame.revertReason)
}
