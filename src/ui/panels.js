// Transfers, asset changes, storage/balance changes and raw JSON links under the tree.
import { big, grouped, h, short, units } from './format.js'

const TOPIC_TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const VALUE_TYPES = new Set(['CALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT'])

/**
 * Transfers of the frames that did not fail (a failed frame undoes its subtree), in execution
 * order: native value, then decoded ERC-20/721 Transfer and ERC-1155 TransferSingle/Batch events.
 */
export function collectTransfers(root) {
  const out = []
  const labels = new Map()
  const walk = (f) => {
    if (f.error) return
    if (f.labels?.to && f.to) labels.set(f.to, f.labels.to)
    if (f.labels?.from) labels.set(f.from, f.labels.from)
    if (VALUE_TYPES.has(f.type) && big(f.value) > 0n) out.push({ asset: 'ETH', token: null, from: f.from, to: f.to, amount: big(f.value), native: true })
    const logs = [...(f.logs ?? [])]
    const calls = f.calls ?? []
    calls.forEach((c, i) => {
      while (logs.length && Number(logs[0].position) <= i) event(logs.shift())
      walk(c)
    })
    logs.forEach(event)
  }
  const event = (log) => {
    const d = log.decoded
    if (!d) return
    const token = log.address
    if (log.topics[0] === TOPIC_TRANSFER && log.topics.length === 3 && d.args.value !== undefined)
      out.push({ token, from: d.args.from, to: d.args.to, amount: BigInt(d.args.value), summary: d.summary })
    else if (log.topics[0] === TOPIC_TRANSFER && log.topics.length === 4)
      out.push({ token, from: d.args.from, to: d.args.to, amount: 1n, tokenId: d.args.tokenId, summary: d.summary })
    else if (d.name === 'TransferSingle' && d.args.id !== undefined)
      out.push({ token, from: d.args.from, to: d.args.to, amount: BigInt(d.args.value), tokenId: d.args.id, summary: d.summary })
    else if (d.name === 'TransferBatch' && Array.isArray(d.args.ids))
      d.args.ids.forEach((id, i) => out.push({ token, from: d.args.from, to: d.args.to, amount: BigInt(d.args.values[i]), tokenId: id, summary: d.summary }))
  }
  walk(root)
  return { transfers: out, labels }
}

const assetName = (t, labels) => (t.native ? 'ETH' : `${labels.get(t.token) ?? short(t.token)}${t.tokenId !== undefined ? ` #${t.tokenId}` : ''}`)
const amountText = (t) => (t.native ? units(t.amount) : grouped(t.amount))
const addr = (a, labels) => h('span', { class: 'addr', title: a }, labels.get(a) ? `${labels.get(a)} ${short(a)}` : short(a))

function table(head, rows) {
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((x) => h('th', { scope: 'col' }, x)),
      ),
    ),
    h('tbody', {}, rows),
  )
}

export function renderTransfers(div, root) {
  const { transfers, labels } = collectTransfers(root)
  if (!transfers.length) return div.replaceChildren(h('p', { class: 'muted' }, 'No value or token moved.'))
  div.replaceChildren(
    table(
      ['asset', 'from', 'to', 'amount'],
      transfers.map((t) =>
        h(
          'tr',
          { title: t.summary ?? '' },
          h('td', {}, assetName(t, labels)),
          h('td', {}, addr(t.from, labels)),
          h('td', {}, addr(t.to, labels)),
          h('td', { class: 'num' }, amountText(t)),
        ),
      ),
    ),
  )
}

/** net of the transfers per account and asset (token amounts in raw units) */
export function renderAssetChanges(div, root) {
  const { transfers, labels } = collectTransfers(root)
  const net = new Map()
  const add = (account, t, delta) => {
    const key = `${account}|${t.token}|${t.tokenId ?? ''}`
    const e = net.get(key) ?? { account, t, delta: 0n }
    e.delta += delta
    net.set(key, e)
  }
  for (const t of transfers) {
    add(t.from, t, -t.amount)
    if (t.to) add(t.to, t, t.amount)
  }
  const rows = [...net.values()].filter((e) => e.delta !== 0n)
  if (!rows.length) return div.replaceChildren(h('p', { class: 'muted' }, 'No asset changed hands (gas fees are in the balance changes below).'))
  div.replaceChildren(
    h('p', { class: 'muted' }, 'Net of the transfers above; token amounts in the token’s smallest unit.'),
    table(
      ['account', 'asset', 'change'],
      rows.map((e) =>
        h(
          'tr',
          {},
          h('td', {}, addr(e.account, labels)),
          h('td', {}, assetName(e.t, labels)),
          h('td', { class: `num ${e.delta < 0n ? 'neg' : 'pos'}` }, `${e.delta > 0n ? '+' : ''}${e.t.native ? units(e.delta) : grouped(e.delta)}`),
        ),
      ),
    ),
  )
}

/** prestateTracer diffMode: per account, balance/nonce/code and every storage change before → after, by variable where named */
export function renderStateChanges(div, diff, labels) {
  const pre = diff?.pre ?? {}
  const post = diff?.post ?? {}
  const accounts = [...new Set([...Object.keys(pre), ...Object.keys(post)])]
  if (!accounts.length) return div.replaceChildren(h('p', { class: 'muted' }, 'No state changed.'))
  const blocks = accounts.map((a) => {
    const b = pre[a] ?? {}
    const n = post[a] ?? {}
    const rows = []
    if (n.balance !== undefined && n.balance !== b.balance) {
      const d = big(n.balance) - big(b.balance)
      rows.push(
        h(
          'tr',
          {},
          h('td', {}, 'balance'),
          h('td', { class: 'num' }, units(big(b.balance))),
          h('td', { class: 'num' }, units(big(n.balance))),
          h('td', { class: `num ${d < 0n ? 'neg' : 'pos'}` }, `${d > 0n ? '+' : ''}${units(d)}`),
        ),
      )
    }
    if (n.nonce !== undefined && n.nonce !== b.nonce)
      rows.push(h('tr', {}, h('td', {}, 'nonce'), h('td', { class: 'num' }, String(b.nonce ?? 0)), h('td', { class: 'num' }, String(n.nonce)), h('td')))
    if (n.code !== undefined && n.code !== b.code)
      rows.push(
        h(
          'tr',
          {},
          h('td', {}, 'code'),
          h('td', {}, b.code ? `${(b.code.length - 2) / 2} bytes` : 'none'),
          h('td', {}, `${(n.code.length - 2) / 2} bytes`),
          h('td'),
        ),
      )
    rows.push(...storageRows(b, n, diff?.decoded?.[a]))
    const name = labels.get(a)
    return h(
      'div',
      { class: 'account' },
      h('h3', {}, name ? `${name} ` : '', h('span', { class: 'mono' }, a), !pre[a] ? h('span', { class: 'tag' }, 'new') : null),
      rows.length ? table(['', 'before', 'after', 'change'], rows) : h('p', { class: 'muted' }, 'touched, unchanged'),
    )
  })
  div.replaceChildren(...blocks)
}

const slotText = (s) => `slot ${s.length > 20 ? `${s.slice(0, 10)}…${s.slice(-6)}` : s}`

/**
 * The changed slots of one account: by variable where the layout names them (`decoded`: the
 * Solidity path and the values decoded by type, the raw slots on a secondary line and in the
 * title), every other changed slot raw.
 */
function storageRows(b, n, decoded = []) {
  const rows = []
  const named = new Set()
  for (const d of decoded) {
    if (d.variable === null || d.variable === undefined) continue
    for (const s of d.slots ?? []) named.add(s.toLowerCase())
    const slots = (d.slots ?? []).join('\n')
    rows.push(
      h(
        'tr',
        { class: 'decoded' },
        h(
          'td',
          { title: `${d.type}${slots ? `\n${slots}` : ''}` },
          h('span', { class: 'storage-name' }, d.variable),
          h('span', { class: 'storage-slot' }, `${d.type}${d.slots?.length ? ` · ${d.slots.map(slotText).join(', ')}` : ''}`),
        ),
        h('td', { class: 'mono', title: String(d.before) }, value(d.before)),
        h('td', { class: 'mono', title: String(d.after) }, value(d.after)),
        h('td', { class: 'num' }, numericChange(d.before, d.after)),
      ),
    )
  }
  const slots = new Set([...Object.keys(b.storage ?? {}), ...Object.keys(n.storage ?? {})])
  for (const s of slots) {
    if (named.has(s.toLowerCase())) continue
    const before = b.storage?.[s] ?? '0x0'
    const after = n.storage?.[s] ?? '0x0'
    if (before === after) continue
    rows.push(
      h(
        'tr',
        {},
        h('td', { class: 'mono', title: s }, slotText(s)),
        h('td', { class: 'mono', title: before }, word(before)),
        h('td', { class: 'mono', title: after }, word(after)),
        h('td'),
      ),
    )
  }
  return rows
}

/** a decoded value: decimal numbers grouped, long strings and hex shortened (whole in the title) */
function value(v) {
  if (v === null || v === undefined) return '—'
  const text = String(v)
  if (/^-?\d+$/.test(text)) return grouped(BigInt(text))
  return text.length > 42 ? `${text.slice(0, 20)}…${text.slice(-8)}` : text
}

/** after − before, for decoded numbers only */
function numericChange(before, after) {
  if (!/^-?\d+$/.test(String(before)) || !/^-?\d+$/.test(String(after))) return ''
  const d = BigInt(after) - BigInt(before)
  return h('span', { class: d < 0n ? 'neg' : 'pos' }, `${d > 0n ? '+' : ''}${grouped(d)}`)
}

function word(hex) {
  const v = big(hex)
  return v < 10n ** 15n ? grouped(v) : `${hex.slice(0, 10)}…${hex.slice(-6)}`
}

/** one link per tracer output: the JSON as the API returned it, in a new tab */
export function renderRaw(div, data) {
  const links = Object.entries(data).map(([name, value]) => {
    const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }))
    return h('li', {}, h('a', { href: url, target: '_blank', rel: 'noopener' }, `${name}.json`))
  })
  div.replaceChildren(h('ul', { class: 'raw' }, links))
}
