// The gas view: tracer gasProfile's folded stacks drawn as a flame chart (an icicle: the top
// function a full-width bar, each callee a bar under its caller as wide as its gas), the
// costliest source lines, and the speedscope document to download (decision 0133).
import { grouped, h } from './format.js'

/** `a;b;c 123` lines → a tree of { name, self, total, children } (a stack seen twice adds up) */
export function foldedTree(folded) {
  const root = { name: 'all', self: 0, total: 0, children: new Map() }
  for (const line of folded.split('\n')) {
    const at = line.lastIndexOf(' ')
    const gas = Number(line.slice(at + 1))
    if (at < 1 || !Number.isFinite(gas)) continue
    let node = root
    node.total += gas
    for (const name of line.slice(0, at).split(';')) {
      let child = node.children.get(name)
      if (!child) node.children.set(name, (child = { name, self: 0, total: 0, children: new Map(), parent: node }))
      child.total += gas
      node = child
    }
    node.self += gas
  }
  return root
}

const MIN_SHARE = 0.002 // a bar narrower than 0.2% of the chart is not drawn (its gas is in its caller's bar)
const pct = (x) => `${(x * 100).toFixed(3)}%`

/** the chart with `focus` as wide as the chart: its ancestors full width above it, its callees below */
function drawFlame(chart, root, focus) {
  const bars = []
  let deepest = 0
  const bar = (node, depth, left, width) => {
    deepest = Math.max(deepest, depth)
    const share = root.total ? Math.round((node.total / root.total) * 1000) / 10 : 0
    const title = `${node.name}\nself ${grouped(node.self)} gas · total ${grouped(node.total)} gas (${share}% of the profile)`
    const zoomTo = node === focus ? (node.parent ?? node) : node
    bars.push(
      h(
        'button',
        {
          type: 'button',
          class: `bar${node === focus ? ' focus' : ''}${node === root ? ' root' : ''}`,
          style: `left:${pct(left)};width:${pct(width)};top:${depth * 22}px`,
          title,
          'data-name': node.name,
          'data-self': node.self,
          'data-total': node.total,
          onclick: () => {
            drawFlame(chart, root, zoomTo)
            // the bars are drawn anew: the keyboard stays on the bar now in focus
            chart.querySelector('.bar.focus')?.focus()
          },
        },
        node === root ? `all · ${grouped(node.total)} gas` : `${node.name} · ${grouped(node.total)}`,
      ),
    )
  }
  const path = []
  for (let n = focus; n; n = n.parent) path.unshift(n)
  path.forEach((n, i) => bar(n, i, 0, 1))
  const under = (node, depth, left, width) => {
    let x = left
    for (const child of [...node.children.values()].sort((a, b) => b.total - a.total)) {
      const w = node.total ? (child.total / node.total) * width : 0
      if (w >= MIN_SHARE) {
        bar(child, depth, x, w)
        under(child, depth + 1, x, w)
      }
      x += w
    }
  }
  under(focus, path.length, 0, 1)
  chart.style.height = `${(deepest + 1) * 22}px`
  chart.replaceChildren(...bars)
}

/** the costliest lines first, at most `top` of them */
function linesTable(lines, top = 20) {
  const rows = [...lines].sort((a, b) => b.gas - a.gas).slice(0, top)
  if (!rows.length) return h('p', { class: 'muted' }, 'No line: no sources are known for this code.')
  return h(
    'table',
    { class: 'gas-lines' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'line'), h('th', { scope: 'col' }, 'gas'), h('th', { scope: 'col' }, 'hits'))),
    h(
      'tbody',
      {},
      rows.map((l) =>
        h('tr', {}, h('td', { class: 'mono' }, `${l.file}:${l.line}`), h('td', { class: 'num' }, grouped(l.gas)), h('td', { class: 'num' }, grouped(l.hits))),
      ),
    ),
  )
}

/** the speedscope document saved as a .json file (speedscope opens it as it is) */
function downloadSpeedscope(doc) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc)], { type: 'application/json' }))
  const a = h('a', { href: url, download: 'gas-profile.speedscope.json' })
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export function renderGasProfile(div, profile) {
  if (!profile) return div.replaceChildren(h('p', { class: 'muted' }, 'No gas profile in this answer.'))
  const root = foldedTree(profile.folded ?? '')
  const chart = h('div', { class: 'flame', role: 'group', 'aria-label': 'Flame chart: click a bar to zoom on it, the top bar to zoom out' })
  drawFlame(chart, root, root)
  div.replaceChildren(
    h(
      'p',
      { class: 'gas-summary' },
      `execution ${grouped(profile.executionGas)} gas · intrinsic ${grouped(profile.intrinsicGas)} gas · `,
      h('button', { type: 'button', id: 'speedscope', onclick: () => downloadSpeedscope(profile.speedscope) }, 'Download speedscope JSON'),
    ),
    h('p', { class: 'hint' }, 'Width is gas. Click a bar to zoom on it, the top bar to zoom back out; hover a bar for its self and total gas.'),
    chart,
    h('h3', {}, 'Costliest lines'),
    linesTable(profile.lines ?? []),
  )
}
