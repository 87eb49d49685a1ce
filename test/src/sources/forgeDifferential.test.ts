/**
 * The differential against Foundry: every transaction of the source-trace corpus (four compiler
 * profiles: legacy and via-IR, optimizer on and off, solc 0.8.37 and 0.8.26; see
 * test/support/sourceCorpus.ts) mined on a real Anvil, traced by `cast run <hash>
 * --with-local-artifacts --decode-internal` and by the service over the same Anvil (its build-info
 * registered through POST /v1/sources, the trace asked for with `callTree: { internal: true }`).
 * Both give the same frames: external and internal, in the same order and nesting, with the same
 * contract and function names, the same gas, the same decoded arguments and results, the same
 * events where they ran.
 *
 * Where the two differ by design, `asForgeShowsIt` undoes the service's rule (docs/decisions/0107):
 * internal calls still open when their frame reverted are kept by the service, marked `reverted`,
 * and left out by forge. The events of a frame that failed are left out of both (geth's callTracer
 * drops them; forge prints them). The top frame's gas differs in kind (receipt gas here, execution
 * gas in forge) and is not compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletClient, encodeFunctionData, http, parseAbi, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEV_ACCOUNTS, requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { castBinary, requireCast } from '../../support/cast.js'
import { parseBacktrace, parseCastTrace, splitArgs, type CastNode } from '../../support/castTrace.js'
import { buildProfile, forgeBinary, foundry, mineProfile, PROFILES, requireForge, type CorpusTx, type Profile } from '../../support/sourceCorpus.js'
import { startForkApp, type ForkApp } from '../forks/forkApp.js'

const ready = requireAnvil() && requireCast() && requireForge()

/** one frame as both sides can say it */
interface Norm {
  kind: 'call' | 'create' | 'internal' | 'emit'
  name?: string
  gas?: number
  args?: string[]
  result?: string[]
  children: Norm[]
}

type Frame = {
  type: string
  gasUsed: Hex
  error?: string
  reverted?: true
  contract?: { name: string }
  function?: { name: string; contract?: string; args?: Record<string, unknown>; result?: Record<string, unknown> }
  calls?: Frame[]
  logs?: { position: Hex; decoded?: { name: string } }[]
}

/** forge prints numbers with a `[1e4]` hint, addresses checksummed, strings quoted */
function forgeValue(v: string): string {
  return v
    .replace(/ \[[^\]]*\]$/, '')
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase()
}

function ourValue(v: unknown): string {
  if (v === null || v === undefined) return '<unknown>'
  if (Array.isArray(v)) return `[${v.map(ourValue).join(', ')}]`
  return String(v).toLowerCase()
}

/** no values and no `returns` print the same in forge: nothing after `←` */
const values = (r: Record<string, unknown> | undefined) => (r && Object.keys(r).length > 0 ? Object.values(r).map(ourValue) : undefined)

/** the service's rule undone (docs/decisions/0107): reverted internal calls go, their contents move up */
function asForgeShowsIt(frames: Norm[], reverted: Set<Norm>): Norm[] {
  return frames.flatMap((f) => {
    const children = asForgeShowsIt(f.children, reverted)
    return reverted.has(f) ? children : [{ ...f, children }]
  })
}

function fromService(frame: Frame, top: boolean, failedAbove: boolean, reverted: Set<Norm>): Norm {
  const failed = failedAbove || (frame.type !== 'INTERNAL' && frame.error !== undefined)
  const calls = frame.calls ?? []
  const logs = failed ? [] : (frame.logs ?? [])
  const children: Norm[] = []
  for (let i = 0; i <= calls.length; i++) {
    for (const log of logs) if (Number(log.position) === i) children.push({ kind: 'emit', name: log.decoded?.name, children: [] })
    if (i < calls.length) children.push(fromService(calls[i]!, false, failed, reverted))
  }
  if (frame.type === 'INTERNAL') {
    const fn = frame.function!
    const args = fn.args ? Object.values(fn.args).map(ourValue) : undefined
    const node: Norm = { kind: 'internal', name: `${fn.contract}::${fn.name}`, gas: Number(frame.gasUsed), args, result: values(fn.result), children }
    if (frame.reverted) reverted.add(node)
    return node
  }
  return {
    kind: frame.type.startsWith('CREATE') ? 'create' : 'call',
    ...(frame.contract && { name: frame.contract.name }),
    ...(!top && { gas: Number(frame.gasUsed) }),
    children,
  }
}

function fromCast(node: CastNode, top: boolean, failedAbove: boolean): Norm {
  const failed = failedAbove || ((node.kind === 'call' || node.kind === 'create') && !/^\[(Return|Stop)\]/.test(node.ret ?? ''))
  const children = node.children.filter((c) => !(failed && c.kind === 'emit')).map((c) => fromCast(c, false, failed))
  if (node.kind === 'emit') return { kind: 'emit', name: node.name, children: [] }
  if (node.kind === 'internal') {
    const result = node.ret === undefined || node.ret === '' ? undefined : splitArgs(node.ret).map(forgeValue)
    return { kind: 'internal', name: node.name, gas: node.gas, args: node.args?.map(forgeValue), result, children }
  }
  const contract = node.kind === 'create' ? node.name : node.name.split('::')[0]!
  // an address: forge did not recognise the code
  return { kind: node.kind, ...(!contract.startsWith('0x') && { name: contract }), ...(!top && { gas: node.gas }), children }
}

/** a contract forge did not name may be named by the service: only the names forge gives are compared */
function withForgeNames(ours: Norm, theirs: Norm): Norm {
  const children = ours.children.map((c, i) => (theirs.children[i] ? withForgeNames(c, theirs.children[i]!) : c))
  if (ours.kind !== 'internal' && ours.kind !== 'emit' && theirs.name === undefined) {
    const { name: _, ...rest } = ours
    return { ...rest, children }
  }
  return { ...ours, children }
}

/** one transaction both ways: cast run against `rpcUrl`, the service's tree at `tracePath` */
async function compare(app: ForkApp, tx: { hash: Hex; profile: Profile }, rpcUrl: string, tracePath: string) {
  const [text, res] = await Promise.all([
    foundry(castBinary()!, ['run', tx.hash, '--quick', '--with-local-artifacts', '--decode-internal', '--rpc-url', rpcUrl], tx.profile, { allowFailure: true }),
    app.request('POST', tracePath, { transactionHash: tx.hash, tracerConfig: { callTree: { internal: true } } }),
  ])
  expect(res.status).toBe(200)
  const reverted = new Set<Norm>()
  const ours = fromService(res.json.data.callTree as Frame, true, false, reverted)
  const theirs = fromCast(parseCastTrace(text), true, false)
  return { theirs, shown: withForgeNames(asForgeShowsIt([ours], reverted)[0]!, theirs) }
}

const internalCount = (n: Norm): number => (n.kind === 'internal' ? 1 : 0) + n.children.reduce((sum, c) => sum + internalCount(c), 0)

describe.runIf(ready)('internal calls, names, gas and arguments: the service against cast run --decode-internal', () => {
  let anvil: AnvilInstance
  let app: ForkApp
  const txs: CorpusTx[] = []

  beforeAll(async () => {
    anvil = await startAnvil()
    app = await startForkApp({ rpcUrl: anvil.url })
    // one compilation per profile, in turn (forge runs solc-js on one core each)
    for (const profile of PROFILES) {
      const built = await buildProfile(profile)
      for (const buildInfo of built.buildInfos) expect((await app.request('POST', '/v1/sources', { buildInfo })).status).toBe(201)
      txs.push(...(await mineProfile(anvil.rpc, built, DEV_ACCOUNTS[0] as Address, DEV_ACCOUNTS[1] as Address)))
    }
  }, 600_000)

  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  it('mines a corpus of transactions that succeed and revert, on every profile', () => {
    expect(txs.length).toBeGreaterThanOrEqual(25 * 3)
    expect(txs.filter((t) => t.status === 'reverted').length).toBeGreaterThanOrEqual(20)
    expect(new Set(txs.map((t) => t.profile))).toEqual(new Set(PROFILES))
  })

  it('every transaction: the same frames as cast run', async () => {
    const differences: string[] = []
    let internal = 0
    // three cast runs at a time: each waits on its node as much as it computes
    const queue = [...txs]
    const worker = async () => {
      for (let tx = queue.shift(); tx; tx = queue.shift()) {
        const { theirs, shown } = await compare(app, tx, anvil.url, '/v1/trace/tx')
        internal += internalCount(theirs)
        try {
          expect(shown).toEqual(theirs)
        } catch {
          differences.push(`${tx.profile} ${tx.label} ${tx.hash}\nservice: ${JSON.stringify(shown)}\ncast:    ${JSON.stringify(theirs)}`)
        }
      }
    }
    await Promise.all([worker(), worker(), worker()])
    expect(differences).toEqual([])
    // the comparison saw internal calls, not only external frames
    expect(internal).toBeGreaterThanOrEqual(50)
  }, 900_000)

  it('JSON-RPC: debug_traceTransaction and debug_traceCall with tracer callTree answer the same tree', async () => {
    const rpc = async (method: string, params: unknown[]) => (await app.request('POST', '/v1/rpc', { jsonrpc: '2.0', id: 1, method, params })).json
    for (const tx of txs.filter((t) => t.profile === 'default' && /deposit:|custom error|nested call/.test(t.label))) {
      const rest = await app.request('POST', '/v1/trace/tx', { transactionHash: tx.hash, tracerConfig: { callTree: { internal: true } } })
      const answer = await rpc('debug_traceTransaction', [tx.hash, { tracer: 'callTree', tracerConfig: { internal: true } }])
      expect(answer.result).toEqual(rest.json.data.callTree)
      expect(JSON.stringify(answer.result)).toContain('"INTERNAL"')
    }
    const sent = await anvil.rpc<{ from: Address; to: Address; input: Hex }>('eth_getTransactionByHash', [
      txs.find((t) => t.profile === 'default' && t.label.startsWith('fib'))!.hash,
    ])
    const call = await rpc('debug_traceCall', [
      { from: sent.from, to: sent.to, data: sent.input },
      'latest',
      { tracer: 'callTree', tracerConfig: { internal: true } },
    ])
    const names = JSON.stringify(call.result).match(/"name":"_fib"/g) ?? []
    // fib(6) recurses 25 times through _fib
    expect(names).toHaveLength(25)
    const bad = await rpc('debug_traceTransaction', [txs[0]!.hash, { tracer: 'callTree', tracerConfig: { internal: 'yes' } }])
    expect(bad.error.code).toBe(-32602)
  }, 120_000)

  it("on a writable fork: transactions the fork mined, cast run against the fork's rpcUrl", async () => {
    const fork = await app.createFork()
    const vault = (
      await anvil.rpc<{ contractAddress: Address }>('eth_getTransactionReceipt', [
        txs.find((t) => t.profile === 'default' && t.label.startsWith('deploy Vault'))!.hash,
      ])
    ).contractAddress
    const alice = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    const chain = { id: 31337, name: 'fork', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [fork.rpcUrl] } } }
    const wallet = createWalletClient({ account: alice, chain, transport: http(fork.rpcUrl) })
    const abi = parseAbi(['function deposit(uint256) returns (uint256)', 'function withdraw(uint256)', 'function fib(uint256) returns (uint256)'])
    const sent: Hex[] = []
    for (const [functionName, args] of [
      ['deposit', [77n]],
      ['withdraw', [10n ** 9n]],
      ['fib', [5n]],
    ] as const)
      sent.push(await wallet.sendTransaction({ to: vault, data: encodeFunctionData({ abi, functionName, args }), gas: 3_000_000n }))
    let internal = 0
    for (const hash of sent) {
      const { theirs, shown } = await compare(app, { hash, profile: 'default' }, fork.rpcUrl, `/v1/forks/${fork.forkId}/trace/tx`)
      expect(shown).toEqual(theirs)
      internal += internalCount(theirs)
    }
    expect(internal).toBeGreaterThanOrEqual(10)
  }, 300_000)

  it('a reverted transaction: the backtrace names the files and lines forge test -vvvvv does', async () => {
    // forge test runs each reverting call of the corpus on contracts it deploys on a fork of the
    // node (test/Backtrace.t.sol); via-IR builds are left out: forge prints no source locations for them
    const cases: Record<string, string> = {
      test_withdraw: 'withdraw past the balance',
      test_sweepByAnother: 'sweep by another',
      test_sweepByOwner: 'sweep by the owner',
      test_overflow: 'overflow',
      test_divide: 'divide by zero',
      test_entry: 'index out of bounds',
      test_quoteStrict: 'a nested call reverts',
      test_proxy: 'proxy: the implementation reverts',
    }
    let compared = 0
    // a panic's last instruction is in the compiler's generated code: no file in either
    let located = 0
    for (const profile of ['default', 'opt', 'old'] as const) {
      const out = await foundry(forgeBinary()!, ['test', '-vvvvv', '--fork-url', anvil.url], profile, { allowFailure: true })
      const sections = forgeTestSections(out)
      for (const [test, label] of Object.entries(cases)) {
        const forge = parseBacktrace(sections.get(test) ?? '')
        expect(forge, `${profile} ${test}: no backtrace in\n${sections.get(test) ?? out}`).toBeDefined()
        const tx = txs.find((t) => t.profile === profile && t.label.startsWith(label))!
        const res = await app.request('POST', '/v1/trace/tx', { transactionHash: tx.hash, tracerConfig: { callTree: {} } })
        const ours = (res.json.data.callTree.backtrace ?? []) as { contract: string; file?: string; line?: number }[]
        // forge's outermost entry is the test contract's own call
        const theirs = forge!.slice(0, -1).map((e) => ({ contract: e.contract, file: e.file, line: e.line }))
        expect(
          ours.map((e) => ({ contract: e.contract, file: e.file, line: e.line })),
          `${profile} ${test}`,
        ).toEqual(theirs)
        compared++
        located += theirs.filter((e) => e.file && e.line).length
      }
    }
    expect(compared).toBe(24)
    expect(located).toBeGreaterThanOrEqual(15)
  }, 600_000)
})

/** forge test's output cut per test: from its `[FAIL…] name()` line to the next */
function forgeTestSections(out: string): Map<string, string> {
  const sections = new Map<string, string>()
  let current: string | undefined
  for (const line of out.split('\n')) {
    const m = /^\[(?:FAIL|PASS).*\] (test\w+)\(\)/.exec(line)
    if (m) current = m[1]
    if (current) sections.set(current, `${sections.get(current) ?? ''}${line}\n`)
  }
  return sections
}
