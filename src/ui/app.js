// The trace viewer: a form → POST /v1/trace/tx or /v1/trace/call with the callTree, callTracer,
// prestateTracer (diff) and gasProfile tracers in one run → the tree and the panels. The API token is kept
// in sessionStorage (this tab's session only) and sent as `Authorization: Bearer`.
import { encodeCall, findInAbi } from './abiEncode.js'
import { h } from './format.js'
import { createDebugger } from './debugger.js'
import { renderGasProfile } from './gas.js'
import { collectTransfers, renderAssetChanges, renderRaw, renderStateChanges, renderTransfers } from './panels.js'
import { renderBacktrace, renderWarnings } from './source.js'
import { sourcePane } from './sourcePane.js'
import { buildModel, renderDetail, renderTree } from './tree.js'

const TOKEN_KEY = 'evm-sim.token'
const $ = (id) => document.getElementById(id)
const form = $('query')
const status = (text, error = false) => {
  $('status').textContent = text
  $('status').className = error ? 'error' : ''
}

// --- token -------------------------------------------------------------------------------
function showTokenState() {
  $('token-state').textContent = sessionStorage.getItem(TOKEN_KEY) ? 'token set for this session' : 'no token'
}
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault()
  const value = $('token').value.trim()
  if (value) sessionStorage.setItem(TOKEN_KEY, value)
  else sessionStorage.removeItem(TOKEN_KEY)
  $('token').value = ''
  showTokenState()
  void loadChains()
})
showTokenState()

// --- chain -------------------------------------------------------------------------------
// a deployment serving several chains (GET /v1/chains): the picked one's routes are under
// /v1/chains/{name}/; the page opened at /v1/chains/{name}/ui starts on that chain
const pathChain = /^\/v1\/chains\/([^/]+)\//.exec(location.pathname)?.[1]
async function loadChains() {
  const headers = {}
  const token = sessionStorage.getItem(TOKEN_KEY)
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch('/v1/chains', { headers }).catch(() => undefined)
  const list = res?.ok ? (await res.json()).data : undefined
  if (!list || list.length < 2) {
    $('chain-field').hidden = true
    return
  }
  $('chain').replaceChildren(
    ...list.map((c) => h('option', { value: c.default ? '' : c.name }, `${c.name} · ${c.kind} · id ${c.chainId}${c.status === 'ok' ? '' : ' (down)'}`)),
  )
  if (pathChain) $('chain').value = decodeURIComponent(pathChain)
  $('chain-field').hidden = false
}
const chainPrefix = () => ($('chain').value ? `/v1/chains/${encodeURIComponent($('chain').value)}` : '')
void loadChains().then(loadForks)

// --- fork --------------------------------------------------------------------------------
// a writable fork of the chain (docs/forks.md): its transactions and state are traced through
// /v1/forks/{forkId}/trace/…; the field suggests the live forks (GET /v1/forks), `?fork=` fills it
const FORK_ID = /^fork_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
async function loadForks() {
  const headers = {}
  const token = sessionStorage.getItem(TOKEN_KEY)
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${chainPrefix()}/v1/forks`, { headers }).catch(() => undefined)
  const list = res?.ok ? (await res.json()).data : []
  $('fork-list').replaceChildren(
    ...list.map((f) => h('option', { value: f.forkId }, `${f.label ?? 'fork'} · block ${BigInt(f.forkBlockNumber)} → ${BigInt(f.headBlockNumber)}`)),
  )
}
$('chain').addEventListener('change', () => void loadForks())
$('token-form').addEventListener('submit', () => void loadForks())
function forkPath(path) {
  const id = $('fork').value.trim()
  if (!id) return path
  if (!FORK_ID.test(id)) throw new Error('fork: fork_ followed by a UUID (POST /v1/forks answers it), or empty for the chain itself')
  return `/v1/forks/${id}${path.slice('/v1'.length)}`
}
$('fork').value = new URLSearchParams(location.search).get('fork') ?? ''

// --- form --------------------------------------------------------------------------------
function mode() {
  return form.elements.mode.value
}
function showMode() {
  document.body.dataset.mode = mode()
}
form.addEventListener('change', showMode)
showMode()

function json(name) {
  const text = form.elements[name].value.trim()
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new Error(`${name}: not valid JSON (${e.message})`)
  }
}

const hexQuantity = (text, name) => {
  if (!text) return undefined
  if (/^0x[0-9a-fA-F]+$/.test(text)) return text
  if (/^\d+$/.test(text)) return `0x${BigInt(text).toString(16)}`
  throw new Error(`${name}: a decimal number or 0x hex`)
}

function requestBody() {
  const v = (n) => form.elements[n].value.trim()
  const abis = json('abis')
  const labels = json('labels')
  // internal function calls where the service knows the sources; no sources known: the same tree
  const callTree = { internal: true, ...(abis && { abis }), ...(labels && { labels }) }
  const tracerConfig = { callTree, callTracer: { withLogs: true }, prestateTracer: { diffMode: true }, gasProfile: true }
  const stateOverrides = json('overrides')
  if (mode() === 'tx') {
    if (!/^0x[0-9a-fA-F]{64}$/.test(v('hash'))) throw new Error('transaction hash: 0x followed by 64 hex characters')
    return { path: '/v1/trace/tx', body: { transactionHash: v('hash'), tracerConfig, ...(stateOverrides && { stateOverrides }) } }
  }
  const call = {}
  if (v('from')) call.from = v('from')
  if (v('to')) call.to = v('to')
  let data = v('data')
  if (v('fn')) {
    if (data) throw new Error('give Data or Function, not both')
    let signature = v('fn')
    if (!signature.includes('(')) {
      const abi = abis && Object.entries(abis).find(([a]) => a.toLowerCase() === (call.to ?? '').toLowerCase())?.[1]
      signature = findInAbi(abi, signature)
      if (!signature) throw new Error(`function ${v('fn')}: not in the ABI given for To; write its signature, e.g. transfer(address,uint256)`)
    }
    let args = []
    if (v('args')) {
      try {
        args = JSON.parse(v('args'))
      } catch (e) {
        throw new Error(`arguments: not a JSON array (${e.message})`)
      }
    }
    data = encodeCall(signature, args)
  }
  if (data) call.data = data
  const value = hexQuantity(v('value'), 'value')
  if (value) call.value = value
  const gas = hexQuantity(v('gas'), 'gas')
  if (gas) call.gas = gas
  const body = { call, tracerConfig, ...(stateOverrides && { stateOverrides }) }
  const block = v('block')
  if (block && /^\d+$|^0x/.test(block)) body.blockNumber = hexQuantity(block, 'block')
  else if (block) body.blockTag = block
  return { path: '/v1/trace/call', body }
}

/** POST to `url` (the chain's or fork's route, fixed when the trace was asked) with the token set for this browser tab */
async function post(url, body) {
  const headers = { 'content-type': 'application/json' }
  const token = sessionStorage.getItem(TOKEN_KEY)
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
  const answer = await res.json().catch(() => ({ success: false, error: { message: `HTTP ${res.status}` } }))
  if (!answer.success) {
    const err = answer.error ?? {}
    const hint = res.status === 401 ? ' (set the API token at the top)' : ''
    throw new Error(`${err.code ?? res.status}: ${err.message ?? 'request failed'}${hint}`)
  }
  return answer.data
}

// --- results -----------------------------------------------------------------------------
const pane = sourcePane($('source-pane'))
/** the request traced last, asked again with another tracer configuration (the debugger's pages) */
let traced
// `?stepPage=64`: the debugger's pages of steps (default 256, the tracer's most 4096)
const stepPage = Math.min(4096, Number(new URLSearchParams(location.search).get('stepPage')) || 256)
const debug = createDebugger($('debugger-body'), pane, (tracerConfig) => post(traced.url, { ...traced.body, tracerConfig }), stepPage)
/** a frame selected in the tree: its steps asked for once the selection rests (arrow keys run through frames) */
let selecting
function inspect(node, at = 250) {
  clearTimeout(selecting)
  selecting = setTimeout(() => void debug.open(node), at)
}

function show(data) {
  const root = data.callTree
  const model = buildModel(root)
  $('results').hidden = false
  const failed = model.root.failed
  const fn = root.function ? `${root.function.name}` : root.input?.slice(0, 10)
  const frames = `${model.count} frame${model.count === 1 ? '' : 's'}${model.internal ? ` (${model.internal} internal)` : ''}`
  const at = root.backtrace?.[0]?.file ? ` at ${root.backtrace[0].file}:${root.backtrace[0].line}` : ''
  $('summary').replaceChildren(
    h('span', { class: failed ? 'badge fail' : 'badge ok' }, failed ? 'failed' : 'success'),
    ` ${frames} · top call ${root.contract ? `${root.contract.name}::` : ''}${fn ?? ''} · gas used ${BigInt(root.gasUsed).toLocaleString('en-US')}`,
    failed ? h('span', { class: 'revert' }, ` · ${root.revert?.reason ?? root.revertReason ?? root.error}${at}`) : '',
  )
  renderWarnings($('warnings'), root.warnings)
  renderBacktrace($('backtrace'), root.backtrace)
  renderTree($('tree'), model, {
    onSelect: (frame, node) => {
      renderDetail($('detail'), frame)
      inspect(node, node === model.root ? 0 : 250)
    },
  })
  renderTransfers($('transfers'), root)
  renderAssetChanges($('assets'), root)
  renderStateChanges($('state'), data.prestateTracer, collectTransfers(root).labels)
  renderGasProfile($('gas'), data.gasProfile)
  renderRaw($('raw'), data)
}

form.addEventListener('submit', async (e) => {
  e.preventDefault()
  let request
  try {
    request = requestBody()
    forkPath(request.path)
  } catch (err) {
    return status(err.message, true)
  }
  status('tracing…')
  $('run').disabled = true
  const started = performance.now()
  try {
    const url = chainPrefix() + forkPath(request.path)
    const data = await post(url, request.body)
    traced = { url, body: request.body }
    show(data)
    status(`done in ${Math.round(performance.now() - started)} ms`)
    if (mode() === 'tx') {
      const fork = $('fork').value.trim()
      history.replaceState(null, '', `?${fork ? `fork=${fork}&` : ''}tx=${request.body.transactionHash}`)
    }
  } catch (err) {
    status(err.message, true)
  } finally {
    $('run').disabled = false
  }
})

// ?tx=0x… opens a transaction straight away (links from elsewhere, the README screenshot)
const fromUrl = new URLSearchParams(location.search).get('tx')
if (fromUrl) {
  form.elements.hash.value = fromUrl
  form.requestSubmit()
}
