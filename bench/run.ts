/**
 * `npm run bench`: the service against Anvil on the same inputs, in the same run, on this machine.
 * Absolute times on shared 2-core machines are noise; the ratios (ours / Anvil) are the result.
 *
 * What runs: a real Anvil; an ERC-20 and a two-hop router compiled with solc and deployed on it;
 * the real service as `npm start` runs it (built by `npm run build`, `node dist/src/main.js`, one
 * worker) forking that Anvil through a request-counting proxy;
 * and for the cold case, a fresh Anvil forking the first one through another proxy (with 0 and
 * 20 ms added per round trip); two services on one Redis, and `latest` with and without head
 * tracking, counted by a proxy (sharedState.ts).
 * Each warm operation is timed over HTTP, sequentially, after a warm-up; medians are compared.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { DEV_ACCOUNTS, freePort, startAnvil, type AnvilInstance } from '../test/support/anvil.js'
import { FORK_FLOW_ROW, measureForkFlow } from './forkFlow.js'
import { measureNodeFlow, NODE_FLOW_ROW, nodeFlowRows } from './nodeFlow.js'
import { compile } from '../test/support/solc.js'
import { BENCH_SOURCE as SOURCE } from './benchContracts.js'
import { startCountingProxy } from '../test/support/countingProxy.js'
import { createEvmBaseline, measureBreakdown } from './breakdown.js'
import { cpuMs, processTreeCpuMs } from './threadCpu.js'
import { clientCpuMs, createLoadClient, type LoadClient } from './loadClient.js'
import { createSocketLoadClient, isRestSuccess, isRpcResult, type SocketLoadClient } from './socketLoadClient.js'
import { measureStructLog1m, STRUCT_LOG_1M_ROW } from './streamedStructLog.js'
import { measureSharedState, SHARED_STATE_ROW, type SharedStateResult } from './sharedState.js'
import { measureSourcesTrace, SOURCES_TRACE_ROW } from './sourcesTrace.js'
import { DECODED_STORAGE_ROW, measureDecodedStorage } from './decodedStorageSimulate.js'
import { GAS_PROFILE_LONG_RUN_ROW, gasProfileLongRunRows, measureGasProfileLongRun } from './gasProfileLongRun.js'

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150)
/** how long each throughput run lasts, and how many requests are in flight at once */
const THROUGHPUT_MS = Number(process.env.BENCH_THROUGHPUT_MS ?? 5_000)
const CONNECTIONS = 8
/**
 * throughput windows per figure: ours and Anvil's alternate, window by window, and a ratio is the
 * median of the windows' ratios (one 5 s window moved by ±15% on these shared machines)
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/** requests of each operation before the timed ones, so V8 has optimized the hot paths before the timing starts */
const WARMUP = 200
/**
 * how long each way of running is loaded before its throughput windows. Every engine (each worker
 * thread, each HTTP process) compiles the hot paths on its own, while the load runs: measured on
 * the devnet at 8 in flight, 4 s windows from a fresh start, every mode climbs for about 12 s
 * (e.g. 340, 550, 980, 1060 req/s for WORKERS=0) and then holds
 */
const THROUGHPUT_WARMUP_MS = Number(process.env.BENCH_THROUGHPUT_WARMUP_MS ?? 15_000)
/** calls each measurement of the EVM alone beside the throughput windows runs (about a second) */
const BASELINE_CALLS = 1_000
const TOKEN = 'bench-token'

interface Sample {
  name: string
  ours: number[]
  anvil: number[]
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

async function deploy(anvil: AnvilInstance, bytecode: Hex, abi: Abi, args: unknown[] = []): Promise<Hex> {
  const { encodeDeployData } = await import('viem')
  const data = encodeDeployData({ abi, bytecode, args })
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], data, gas: '0x1c9c380' }])
  // Anvil mines on send, but the receipt can take a moment to be queryable.
  type Receipt = { contractAddress: Hex; status: Hex }
  let receipt: Receipt | null = null
  for (let i = 0; i < 100 && !receipt; i++) {
    receipt = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (!receipt) await new Promise((r) => setTimeout(r, 20))
  }
  if (receipt?.status !== '0x1') throw new Error('deploy failed')
  return receipt.contractAddress
}

const cores = (t: Throughput) => `${t.serverCores.toFixed(2)} + ${t.clientCores.toFixed(2)}`

interface Throughput {
  rps: number
  /** the load generator's own CPU per request, ms */
  clientMs: number
  /** cores the server (every thread of its process) and the load generator kept busy, on average */
  serverCores: number
  clientCores: number
  /** CPU per request of the server's main thread (of the process `pid`), ms */
  serverMainMs: number
}

/** requests answered per second with `connections` requests in flight at once, for `ms`; `pid`: the server's process */
async function throughput(send: (i: number) => Promise<unknown>, ms: number, pid: number, connections = CONNECTIONS): Promise<Throughput> {
  let n = 0
  const end = performance.now() + ms
  const start = performance.now()
  const cpu0 = clientCpuMs()
  // the whole process tree: with PROCESSES the HTTP processes are the service's children
  const server0 = processTreeCpuMs(pid)
  const main0 = cpuMs(pid)
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = c; performance.now() < end; i += connections) {
        await send(i)
        n++
      }
    }),
  )
  const elapsed = performance.now() - start
  const client = clientCpuMs() - cpu0
  return {
    rps: n / (elapsed / 1000),
    clientMs: client / n,
    serverCores: (processTreeCpuMs(pid) - server0) / elapsed,
    clientCores: client / elapsed,
    serverMainMs: (cpuMs(pid) - main0) / n,
  }
}

/** the mean of several windows' figures (windows of equal length) */
function meanOf(ts: Throughput[]): Throughput {
  const mean = (f: (t: Throughput) => number) => ts.reduce((sum, t) => sum + f(t), 0) / ts.length
  return {
    rps: mean((t) => t.rps),
    clientMs: mean((t) => t.clientMs),
    serverCores: mean((t) => t.serverCores),
    clientCores: mean((t) => t.clientCores),
    serverMainMs: mean((t) => t.serverMainMs),
  }
}

interface Rounds {
  ours: Throughput
  theirs: Throughput
  ratios: number[]
  ratio: number
}

/** ROUNDS windows of ours then Anvil's, alternating so both see the same drift of the machine's load */
async function alternate(ours: () => Promise<Throughput>, theirs: () => Promise<Throughput>): Promise<Rounds> {
  const o: Throughput[] = []
  const t: Throughput[] = []
  for (let r = 0; r < ROUNDS; r++) {
    o.push(await ours())
    t.push(await theirs())
  }
  const ratios = o.map((x, k) => x.rps / t[k]!.rps)
  return { ours: meanOf(o), theirs: meanOf(t), ratios, ratio: median(ratios) }
}

async function startService(rpcUrl: string, workers = 1, extraEnv: Record<string, string> = {}): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort()
  // BENCH_PROFILE_DIR=/tmp/prof: the service writes a V8 CPU profile there when it stops
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []
  const child: ChildProcess = spawn(process.execPath, [...profile, 'dist/src/main.js'], {
    env: {
      ...process.env,
      APP_ENV: 'test',
      PORT: String(port),
      RPC_URL: rpcUrl,
      AUTH_TOKEN: TOKEN,
      WORKERS: String(workers),
      RATE_LIMIT_REQUESTS: '100000000',
      LOG_LEVEL: 'error',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error('service exited at start')
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('service did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** one kept-alive client per service URL (see loadClient.ts for why not fetch) */
const clients = new Map<string, LoadClient>()
const clientOf = (url: string) => clients.get(url) ?? clients.set(url, createLoadClient(url, CONNECTIONS)).get(url)!
/** the throughput windows' client per URL (socketLoadClient.ts: a lighter load generator, answers checked by their first bytes) */
const socketClients = new Map<string, SocketLoadClient>()
const socketClientOf = (url: string) => socketClients.get(url) ?? socketClients.set(url, createSocketLoadClient(url, CONNECTIONS)).get(url)!

/** a REST request of a throughput window: fails unless the envelope reports success */
async function postLean(url: string, path: string, body: unknown): Promise<void> {
  const answer = await socketClientOf(url).post(`/v1${path}`, JSON.stringify(body), { authorization: `Bearer ${TOKEN}` })
  if (!isRestSuccess(answer)) throw new Error(`${path}: ${answer.subarray(0, 300).toString()}`)
}

/** a JSON-RPC request of a throughput window: fails unless it answers a result */
async function rpcLean(url: string, method: string, params: unknown[]): Promise<void> {
  const answer = await socketClientOf(url).post('', JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))
  if (!isRpcResult(answer)) throw new Error(`${method}: ${answer.subarray(0, 300).toString()}`)
}

/**
 * calldata whose last word is an amount, from one ABI encoding with amount 0: viem's
 * encodeFunctionData per request was a large part of the load generator's CPU
 */
function withAmount(template: Hex): (amount: bigint) => Hex {
  if (!template.endsWith('0'.repeat(64))) throw new Error('the template must end in a zero amount word')
  const head = template.slice(0, -64)
  return (amount) => `${head}${amount.toString(16).padStart(64, '0')}` as Hex
}

async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const json = await clientOf(url).post<{ success: boolean }>(`/v1${path}`, JSON.stringify(body), { authorization: `Bearer ${TOKEN}` })
  if (!json.success) throw new Error(`${path}: ${JSON.stringify(json).slice(0, 300)}`)
  return json
}

async function main() {
  // what `npm start` runs: the tsc build, not the TypeScript sources through tsx (whose esbuild
  // transform wraps every closure in a naming helper and costs ~20% here)
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
  const c = compile({ 'Bench.sol': SOURCE })
  const anvil = await startAnvil()
  const stops: (() => Promise<void>)[] = [() => anvil.stop()]
  try {
    const supply = 10n ** 30n
    const tokenA = await deploy(anvil, c.Token!.bytecode, c.Token!.abi, [supply])
    const tokenB = await deploy(anvil, c.Token!.bytecode, c.Token!.abi, [supply])
    const pool1 = await deploy(anvil, c.Pool!.bytecode, c.Pool!.abi, [tokenA, tokenB])
    const pool2 = await deploy(anvil, c.Pool!.bytecode, c.Pool!.abi, [tokenB, tokenA])
    const router = await deploy(anvil, c.Router!.bytecode, c.Router!.abi)
    const fund = async (token: Hex, to: Hex) => {
      const data = encodeFunctionData({ abi: c.Token!.abi, functionName: 'transfer', args: [to, supply / 4n] })
      await anvil.rpc('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], to: token, data }])
    }
    await fund(tokenB, pool1)
    await fund(tokenA, pool2)

    const from = DEV_ACCOUNTS[0]
    // every warm request sends another amount, so no answer can come from a result cache
    const transferData = withAmount(encodeFunctionData({ abi: c.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[1], 0n] }))
    const swapData = withAmount(encodeFunctionData({ abi: c.Router!.abi, functionName: 'route', args: [pool1, pool2, DEV_ACCOUNTS[2], 0n] }))
    const transferOf = (i: number) => ({ from, to: tokenA, data: transferData(10n ** 18n + BigInt(i)) })
    const swapOf = (i: number) => ({ from, to: router, data: swapData(10n ** 18n + BigInt(i)) })
    if (swapOf(7).data !== encodeFunctionData({ abi: c.Router!.abi, functionName: 'route', args: [pool1, pool2, DEV_ACCOUNTS[2], 10n ** 18n + 7n] }))
      throw new Error('withAmount encodes another call than viem')
    const swap = swapOf(0)

    // ---- cold state: the first simulation of a two-hop route at a block nothing has read yet ----
    // The service is warmed up first at the current head (V8 compiles its code), then Anvil mines a
    // block: every account and slot at the new head is unread, so what is timed is state fetching,
    // not JIT. The proxy adds a delay per round trip to stand in for a hosted node's distance.
    const cold: string[] = []
    const coldMethods = { ours: '', anvil: '' }
    const simulateSwap = (svc: { url: string }, call: typeof swap) => post(svc.url, '/simulate', { params: { calls: [call], blockTag: 'latest' } })
    // BENCH_ONLY=<text>: only the warm operations whose name contains it, no cold case (profiling)
    const only = process.env.BENCH_ONLY
    for (const delayMs of only ? [] : [0, 20]) {
      const proxy = await startCountingProxy(anvil.url, { delayMs })
      // `latest` resolved on every request: a block mined just now is what the case is about (with
      // head tracking a request within chain.head_max_age_ms would still run on the block before)
      const svc = await startService(proxy.url, 1, { HEAD_MAX_AGE_MS: '0' })
      if (delayMs === 0) {
        const first = await timeIt(() => simulateSwap(svc, swap))
        cold.push(`| first request of a freshly started service (JIT cold), 0 ms added | ${first.toFixed(1)} ms | | |`)
      }
      for (let i = 0; i < 30; i++) await simulateSwap(svc, swap)
      // the warm-up's route on a new block: its hint looks cached at the head just seen, so the
      // block and then the hint go one after the other before the state batch
      await anvil.rpc('evm_mine')
      proxy.reset()
      const seen = await timeIt(() => simulateSwap(svc, swap))
      const seenTrips = proxy.requests()
      // a route nobody ran yet (another amount) on another new block: the whole run is cold
      await anvil.rpc('evm_mine')
      const fresh = { ...swap, data: encodeFunctionData({ abi: c.Router!.abi, functionName: 'route', args: [pool1, pool2, DEV_ACCOUNTS[2], 7n * 10n ** 17n] }) }
      proxy.reset()
      const ours = await timeIt(() => simulateSwap(svc, fresh))
      const oursCalls = proxy.total()
      const oursTrips = proxy.requests()
      coldMethods.ours = JSON.stringify(proxy.counts())
      proxy.reset()
      const again = await timeIt(() => simulateSwap(svc, fresh))
      const againTrips = proxy.requests()
      // a mined transaction's trace: the third of three swaps in a block nothing has read
      await anvil.rpc('evm_setAutomine', [false])
      const mined: Hex[] = []
      for (let k = 0; k < 3; k++) mined.push(await anvil.rpc<Hex>('eth_sendTransaction', [swapOf(100 + k)]))
      await anvil.rpc('evm_mine')
      await anvil.rpc('evm_setAutomine', [true])
      proxy.reset()
      const traced = await timeIt(() => post(svc.url, '/trace/tx', { transactionHash: mined[2], tracerConfig: { callTracer: {} } }))
      const tracedTrips = proxy.requests()
      // every other door into a run, each on a block of its own nothing has read, a route not run before
      const doors: [string, (call: ReturnType<typeof swapOf>) => Promise<unknown>][] = [
        ['/trace/call callTracer', (call) => post(svc.url, '/trace/call', { call, blockTag: 'latest', tracerConfig: { callTracer: {} } })],
        [
          '/trace/call struct logs',
          (call) => post(svc.url, '/trace/call', { call, blockTag: 'latest', tracerConfig: { structLogger: { disableMemory: true } } }),
        ],
        ['/simulate/access-list', (call) => post(svc.url, '/simulate/access-list', { params: call, block: 'latest' })],
        [
          'eth_call',
          (call) =>
            clientOf(svc.url).post('/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [call, 'latest'] }), {
              authorization: `Bearer ${TOKEN}`,
            }),
        ],
        [
          'eth_estimateGas',
          (call) =>
            clientOf(svc.url).post('/v1/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_estimateGas', params: [call, 'latest'] }), {
              authorization: `Bearer ${TOKEN}`,
            }),
        ],
        [
          'eth_simulateV1',
          (call) =>
            clientOf(svc.url).post(
              '/v1/rpc',
              JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_simulateV1', params: [{ blockStateCalls: [{ calls: [call] }] }, 'latest'] }),
              { authorization: `Bearer ${TOKEN}` },
            ),
        ],
      ]
      const doorTrips: string[] = []
      for (const [k, [name, send]] of doors.entries()) {
        await anvil.rpc('evm_mine')
        proxy.reset()
        const out = (await send(swapOf(5_000 + k))) as { success?: boolean; error?: unknown }
        if (out.success === false || out.error !== undefined) throw new Error(`${name}: ${JSON.stringify(out).slice(0, 300)}`)
        doorTrips.push(`${name} ${proxy.requests()}`)
      }
      await svc.stop()
      await proxy.close()

      const proxy2 = await startCountingProxy(anvil.url, { delayMs })
      const forked = await startAnvil({ args: ['--fork-url', proxy2.url] })
      proxy2.reset()
      const theirs = await timeIt(() => forked.rpc('eth_call', [fresh, 'latest']))
      const theirCalls = proxy2.total()
      const theirTrips = proxy2.requests()
      coldMethods.anvil = JSON.stringify(proxy2.counts())
      await forked.stop()
      await proxy2.close()
      cold.push(
        `| a new two-hop route on an unread block, ${delayMs} ms added per round trip | ${ours.toFixed(1)} ms; ${oursCalls} calls in ${oursTrips} round trips | ${theirs.toFixed(1)} ms; ${theirCalls} calls in ${theirTrips} round trips | ${(ours / theirs).toFixed(2)} |`,
        `| the route of the warm-up, on a new block, ${delayMs} ms added | ${seen.toFixed(1)} ms; ${seenTrips} round trips | | |`,
        `| the new route again, ${delayMs} ms added | ${again.toFixed(1)} ms; ${againTrips} round trip (the block tag) | | |`,
        `| /trace/tx of a swap, third of three in an unread block, ${delayMs} ms added | ${traced.toFixed(1)} ms; ${tracedTrips} round trips (transaction; block and its hint; state and the earlier transactions' hints) | (needs the upstream's debug_traceTransaction) | |`,
        `| the other doors, each a new route on an unread block, ${delayMs} ms added: round trips | ${doorTrips.join('; ')} | | |`,
      )
    }

    // ---- a repeat on a second instance over one Redis; `latest` with and without head tracking ----
    let shared: SharedStateResult | undefined
    if (!only || SHARED_STATE_ROW.includes(only)) {
      const block = await anvil.rpc<Hex>('eth_blockNumber')
      shared = await measureSharedState({
        anvilUrl: anvil.url,
        block,
        startService: (rpcUrl, env) => startService(rpcUrl, 1, env),
        simulate: (svc, call, at) => post(svc.url, '/simulate', { params: { calls: [call], ...(at === 'latest' ? { blockTag: at } : { blockNumber: at }) } }),
        callOf: swapOf,
      })
    }

    // ---- warm: the same operation many times against a warm fork ----
    const svc = await startService(anvil.url)
    stops.push(() => svc.stop())
    const pinned = await anvil.rpc<Hex>('eth_blockNumber')
    const theirRpc = clientOf(anvil.url).rpc
    const ops: { name: string; ours: (i: number) => Promise<unknown>; anvil: (i: number) => Promise<unknown> }[] = [
      {
        name: 'simulate ERC-20 transfer (vs eth_call)',
        ours: (i) => post(svc.url, '/simulate', { params: { calls: [transferOf(i)], blockNumber: pinned } }),
        anvil: (i) => theirRpc('eth_call', [transferOf(i), pinned]),
      },
      {
        name: 'simulate two-hop swap (vs eth_call)',
        ours: (i) => post(svc.url, '/simulate', { params: { calls: [swapOf(i)], blockNumber: pinned } }),
        anvil: (i) => theirRpc('eth_call', [swapOf(i), pinned]),
      },
      {
        name: 'callTracer, two-hop swap',
        ours: (i) => post(svc.url, '/trace/call', { call: swapOf(i), blockNumber: pinned, tracerConfig: { callTracer: {} } }),
        anvil: (i) => theirRpc('debug_traceCall', [swapOf(i), pinned, { tracer: 'callTracer' }]),
      },
      {
        name: 'prestateTracer, two-hop swap',
        ours: (i) => post(svc.url, '/trace/call', { call: swapOf(i), blockNumber: pinned, tracerConfig: { prestateTracer: {} } }),
        anvil: (i) => theirRpc('debug_traceCall', [swapOf(i), pinned, { tracer: 'prestateTracer' }]),
      },
      {
        name: 'struct logs (no memory), two-hop swap',
        ours: (i) => post(svc.url, '/trace/call', { call: swapOf(i), blockNumber: pinned, tracerConfig: { structLogger: { disableMemory: true } } }),
        anvil: (i) => theirRpc('debug_traceCall', [swapOf(i), pinned, {}]),
      },
      {
        name: 'access list, two-hop swap',
        ours: (i) => post(svc.url, '/simulate/access-list', { params: swapOf(i), block: pinned }),
        anvil: (i) => theirRpc('eth_createAccessList', [swapOf(i), pinned]),
      },
    ]
    const samples: Sample[] = []
    /** the service's CPU per request of each operation: main thread, and whole process (GC threads included) */
    const cpu: Record<string, { main: number; process: number }> = {}
    for (const op of ops.filter((o) => !only || o.name.includes(only))) {
      for (let i = 0; i < WARMUP; i++) {
        await op.ours(i)
        await op.anvil(i)
      }
      const s: Sample = { name: op.name, ours: [], anvil: [] }
      const [main0, all0] = [cpuMs(svc.pid), cpuMs(svc.pid, true)]
      // interleaved so both see the same machine load
      for (let i = WARMUP; i < WARMUP + ITERATIONS; i++) {
        s.ours.push(await timeIt(() => op.ours(i)))
        s.anvil.push(await timeIt(() => op.anvil(i)))
      }
      cpu[op.name] = { main: (cpuMs(svc.pid) - main0) / ITERATIONS, process: (cpuMs(svc.pid, true) - all0) / ITERATIONS }
      samples.push(s)
    }

    console.log(
      `\nbench: ${ITERATIONS} sequential requests each over HTTP on 127.0.0.1, after ${WARMUP} warm-up; ours = the service (1 worker) forking Anvil\n`,
    )
    console.log("| operation | ours median (p95) ms | Anvil median (p95) ms | ours / Anvil | the service's CPU per request, ms (main thread) |")
    console.log('|---|---|---|---|---|')
    for (const s of samples) {
      console.log(
        `| ${s.name} | ${median(s.ours).toFixed(2)} (${p95(s.ours).toFixed(2)}) | ${median(s.anvil).toFixed(2)} (${p95(s.anvil).toFixed(2)}) | ${(median(s.ours) / median(s.anvil)).toFixed(2)} | ${cpu[s.name]!.main.toFixed(2)} |`,
      )
    }
    // ---- where a warm transfer's time goes, and the throughput of all cores ----
    if (!only) {
      const { phases, cpu: inProcess } = await measureBreakdown({
        rpcUrl: anvil.url,
        token: tokenA,
        abi: c.Token!.abi,
        from,
        to: DEV_ACCOUNTS[1] as `0x${string}`,
        iterations: ITERATIONS,
      })
      const base = median(phases[0]!.ms)
      const http = median(samples.find((x) => x.name.startsWith('simulate ERC-20'))?.ours ?? [Number.NaN])
      const engineTotal = median(phases[phases.length - 1]!.ms)
      console.log('\n| warm ERC-20 transfer, where the time goes (in process, median) | ms | × the EVM alone |')
      console.log('|---|---|---|')
      for (const p of phases) console.log(`| ${p.name} | ${median(p.ms).toFixed(3)} | ${(median(p.ms) / base).toFixed(2)} |`)
      console.log(`| HTTP and validation (service median − engine total) | ${(http - engineTotal).toFixed(3)} | ${((http - engineTotal) / base).toFixed(2)} |`)
      console.log(`| /simulate over HTTP, latency as the client sees it (its own round trip included) | ${http.toFixed(3)} | ${(http / base).toFixed(2)} |`)
      const simCpu = cpu[samples.find((x) => x.name.startsWith('simulate ERC-20'))?.name ?? '']
      if (simCpu) {
        // CPU against CPU: means over a run on the main thread, on both sides
        console.log(`\n| warm ERC-20 transfer, CPU per request (main thread, mean of ${ITERATIONS}) | ms | × the EVM alone |`)
        console.log('|---|---|---|')
        console.log(`| the EVM alone (in process) | ${inProcess.evm.toFixed(3)} | 1.00 |`)
        console.log(`| engine.simulate (in process) | ${inProcess.engine.toFixed(3)} | ${(inProcess.engine / inProcess.evm).toFixed(2)} |`)
        console.log(
          `| **/simulate over HTTP, the service's main thread** | ${simCpu.main.toFixed(3)} | **${(simCpu.main / inProcess.evm).toFixed(2)}** (goal ≤ 1.5) |`,
        )
        console.log(
          `| /simulate over HTTP, the service's whole process (GC threads too) | ${simCpu.process.toFixed(3)} | ${(simCpu.process / inProcess.evm).toFixed(2)} |`,
        )
      }

      await svc.stop()
      stops.pop()
      const rows: string[] = []
      // the three ways to run: in process; one HTTP thread feeding an engine thread per core; one
      // HTTP process per core, each with its engine in process (docs/operations.md "HTTP processes")
      const modes = [
        { key: 'in process', env: { WORKERS: '1', PROCESSES: '1' }, label: 'WORKERS=1, PROCESSES=1 (in process)' },
        { key: 'threads', env: { WORKERS: '0', PROCESSES: '1' }, label: 'WORKERS=0 (one HTTP thread, one engine thread per core)' },
        { key: 'processes', env: { WORKERS: '1', PROCESSES: '0' }, label: 'PROCESSES=0 (one HTTP process per core, its engine in process)' },
      ] as const
      const perMode: Record<string, Throughput> = {}
      const evmBaseline = await createEvmBaseline({ rpcUrl: anvil.url, callOf: transferOf })
      // the swap's EVM alone, for the bound it sets on the callTracer row
      const swapBaseline = await createEvmBaseline({ rpcUrl: anvil.url, callOf: swapOf, gas: 1_000_000n })
      const swapBeside: number[] = []
      let traceCallRps = Number.NaN
      const evmBeside: number[] = []
      let ethCallRps = Number.NaN
      for (const mode of modes) {
        const s2 = await startService(anvil.url, Number(mode.env.WORKERS), mode.env)
        // the three operations: path and body of request i
        type Operation = 'sim' | 'trace' | 'logs'
        const requestsOf: Record<Operation, (i: number) => [path: string, body: unknown]> = {
          sim: (i) => ['/simulate', { params: { calls: [transferOf(i)], blockNumber: pinned } }],
          trace: (i) => ['/trace/call', { call: swapOf(i), blockNumber: pinned, tracerConfig: { callTracer: {} } }],
          logs: (i) => ['/trace/call', { call: swapOf(i), blockNumber: pinned, tracerConfig: { structLogger: { disableMemory: true } } }],
        }
        // the warm-up reads every answer whole; the windows send the same requests through the lighter client
        const checked = (op: Operation) => (i: number) => post(s2.url, ...requestsOf[op](i))
        const lean = (op: Operation) => (i: number) => postLean(s2.url, ...requestsOf[op](i))
        const [sim, trace, logs] = [checked('sim'), checked('trace'), checked('logs')]
        // the three operations under load until every engine has compiled their hot paths (all
        // connections in use, so every HTTP process and worker gets its share)
        const warmEnd = performance.now() + THROUGHPUT_WARMUP_MS
        await Promise.all(
          Array.from({ length: CONNECTIONS }, async (_, c) => {
            for (let i = c; performance.now() < warmEnd; i += CONNECTIONS) await Promise.all([sim(i), trace(i), logs(i)])
          }),
        )
        const ours = (op: Operation) => () => throughput(lean(op), THROUGHPUT_MS, s2.pid)
        const theirs = (method: string, params: (i: number) => unknown[]) => () =>
          throughput((i) => rpcLean(anvil.url, method, params(i)), THROUGHPUT_MS, anvil.pid)
        if (mode.key === 'in process') {
          // the EVM alone measured before, between and after the windows (the service idle meanwhile)
          const windows: Throughput[] = []
          for (let r = 0; r < ROUNDS; r++) {
            evmBeside.push(await evmBaseline.measure(BASELINE_CALLS))
            windows.push(await ours('sim')())
          }
          evmBeside.push(await evmBaseline.measure(BASELINE_CALLS))
          swapBeside.push(await swapBaseline.measure(BASELINE_CALLS))
          perMode[mode.key] = meanOf(windows)
        } else {
          const r = {
            sim: await alternate(
              ours('sim'),
              theirs('eth_call', (i) => [transferOf(i), pinned]),
            ),
            trace: await alternate(
              ours('trace'),
              theirs('debug_traceCall', (i) => [swapOf(i), pinned, { tracer: 'callTracer' }]),
            ),
            logs: await alternate(
              ours('logs'),
              theirs('debug_traceCall', (i) => [swapOf(i), pinned, { disableMemory: true }]),
            ),
          }
          perMode[mode.key] = r.sim.ours
          const row = (name: string, x: Rounds, goal: string) =>
            `| ${name}, ${mode.env.PROCESSES === '0' ? 'PROCESSES=0' : 'WORKERS=0'} | ${x.ours.rps.toFixed(0)} | ${x.theirs.rps.toFixed(0)} | **${x.ratio.toFixed(2)}** (goal ≥ ${goal}; windows ${x.ratios.map((v) => v.toFixed(2)).join(', ')}) | ${x.ours.clientMs.toFixed(2)} / ${x.theirs.clientMs.toFixed(2)} | ${cores(x.ours)} / ${cores(x.theirs)} |`
          ethCallRps = Number.isNaN(ethCallRps) ? r.sim.theirs.rps : (ethCallRps + r.sim.theirs.rps) / 2
          traceCallRps = Number.isNaN(traceCallRps) ? r.trace.theirs.rps : (traceCallRps + r.trace.theirs.rps) / 2
          rows.push(row('/simulate ERC-20 transfer vs eth_call', r.sim, '0.25'))
          rows.push(row('/trace/call callTracer, swap vs debug_traceCall', r.trace, '0.25'))
          rows.push(row('/trace/call struct logs, swap vs debug_traceCall', r.logs, '1'))
        }
        await s2.stop()
      }
      console.log(
        `\nthroughput, ${CONNECTIONS} requests in flight, ${ROUNDS} windows of ${THROUGHPUT_MS} ms each (req/s and cores: their mean), pinned block, amounts varying per request`,
      )
      console.log(
        `\n| how the service runs | /simulate req/s | cores busy: the service (every process) + the load generator (of ${availableParallelism()}) |\n|---|---|---|`,
      )
      for (const mode of modes) console.log(`| ${mode.label} | ${perMode[mode.key]!.rps.toFixed(0)} | ${cores(perMode[mode.key]!)} |`)
      const inProcessRps = perMode['in process']!.rps
      console.log(
        `\nall cores / in process: WORKERS=0 **${(perMode.threads!.rps / inProcessRps).toFixed(2)}**, PROCESSES=0 **${(perMode.processes!.rps / inProcessRps).toFixed(2)}** (goal ≥ 1.7)`,
      )
      // the load generator shares the machine: at the in-process CPU per request, all cores can
      // answer at most (cores − the client's cores) / the in-process service's cores times as many
      const bound = (m: Throughput) => ((availableParallelism() - m.clientCores) / perMode['in process']!.serverCores).toFixed(2)
      console.log(
        `bound of that ratio on this machine (the cores the load generator leaves over the in-process service's, at the same CPU per request): WORKERS=0 ${bound(perMode.threads!)}, PROCESSES=0 ${bound(perMode.processes!)}`,
      )
      console.log(
        "\n| all cores on both sides | ours req/s | Anvil req/s | ours / Anvil (median of the windows' ratios; ours and Anvil's alternate) | the load generator's CPU per request, ms (ours / Anvil's) | cores busy: server + load generator (ours / Anvil's) |\n|---|---|---|---|---|---|",
      )
      for (const r of rows) console.log(r)
      // the same CPU figure as the table above, with the requests overlapping as under real load:
      // the HTTP thread's fixed costs per wake-up (polling, timers, promise jobs, GC) are shared
      const loaded = perMode['in process']!.serverMainMs
      await evmBaseline.close()
      swapBeside.push(await swapBaseline.measure(BASELINE_CALLS))
      await swapBaseline.close()
      // the windows' own baseline: measured around them, not minutes earlier
      const evmNear = evmBeside.reduce((a, b) => a + b, 0) / evmBeside.length
      console.log(`\n| warm ERC-20 transfer, CPU per request of the main thread, in process (WORKERS=1) | ms | × the EVM alone |\n|---|---|---|`)
      if (simCpu)
        console.log(
          `| one request at a time (the sequential rows), against the EVM alone of the breakdown (${inProcess.evm.toFixed(3)} ms) | ${simCpu.main.toFixed(3)} | ${(simCpu.main / inProcess.evm).toFixed(2)} |`,
        )
      console.log(
        `| ${CONNECTIONS} in flight (the in-process throughput windows), against the EVM alone measured around each window (${evmBeside.map((v) => v.toFixed(3)).join(', ')} ms; mean ${evmNear.toFixed(3)}) | ${loaded.toFixed(3)} | **${(loaded / evmNear).toFixed(2)}** (goal ≤ 1.5) |`,
      )
      // the bound the interpreter sets: the EVM alone (no HTTP, no tracer, nothing else) on every
      // core, with the EVM alone as warm as it is measured beside the windows
      const coreCount = availableParallelism()
      const ceiling = (coreCount * 1000) / evmNear
      console.log(
        `\nceiling: the EVM alone (${evmNear.toFixed(3)} ms of CPU per transfer, in process, measured beside the windows) on all ${coreCount} cores, nothing else running: ${ceiling.toFixed(0)} req/s = ${(ceiling / ethCallRps).toFixed(2)} × Anvil's eth_call above`,
      )
      const swapNear = swapBeside.reduce((a, b) => a + b, 0) / swapBeside.length
      const swapCeiling = (coreCount * 1000) / swapNear
      console.log(
        `ceiling of the callTracer row: the EVM alone on the swap, untraced (${swapNear.toFixed(3)} ms of CPU per call; ${swapBeside.map((v) => v.toFixed(3)).join(', ')}) on all ${coreCount} cores: ${swapCeiling.toFixed(0)} req/s = ${(swapCeiling / traceCallRps).toFixed(2)} × Anvil's debug_traceCall (callTracer) above`,
      )
    }

    // ---- what the contracts' sources cost a trace (bench/sourcesTrace.ts) ----
    if (!only || SOURCES_TRACE_ROW.includes(only)) {
      const r = await measureSourcesTrace({ anvil, startService: (rpcUrl) => startService(rpcUrl), post, iterations: ITERATIONS })
      console.log(`\n| ${SOURCES_TRACE_ROW} | median (p95) ms |\n|---|---|`)
      console.log(`| no sources known | ${median(r.withoutMs).toFixed(2)} (${p95(r.withoutMs).toFixed(2)}) |`)
      console.log(
        `| build-info registered: ${r.internalFrames} INTERNAL frames among ${r.externalFrames} external | ${median(r.withMs).toFixed(2)} (${p95(r.withMs).toFixed(2)}) |`,
      )
      console.log(`\nwith sources / without: **${(median(r.withMs) / median(r.withoutMs)).toFixed(2)}** (goal ≤ 1.5; ${ITERATIONS} requests each, alternating)`)
    }

    // ---- what naming storage changes by variable costs a simulation (bench/decodedStorageSimulate.ts) ----
    if (!only || DECODED_STORAGE_ROW.includes(only)) {
      const r = await measureDecodedStorage({ anvil, startService: (rpcUrl) => startService(rpcUrl), post, iterations: ITERATIONS })
      console.log(`\n| ${DECODED_STORAGE_ROW} | median (p95) ms |\n|---|---|`)
      console.log(`| no sources known | ${median(r.withoutMs).toFixed(2)} (${p95(r.withoutMs).toFixed(2)}) |`)
      console.log(`| build-info registered: ${r.decodedChanges} changes named | ${median(r.withMs).toFixed(2)} (${p95(r.withMs).toFixed(2)}) |`)
      console.log(`\ndecoded / not: **${(median(r.withMs) / median(r.withoutMs)).toFixed(2)}** (goal ≤ 1.3; ${ITERATIONS} requests each, alternating)`)
    }

    // ---- what tracer gasProfile costs a million-step run (bench/gasProfileLongRun.ts) ----
    if (!only || GAS_PROFILE_LONG_RUN_ROW.includes(only)) {
      for (const line of gasProfileLongRunRows(await measureGasProfileLongRun(7))) console.log(line)
    }

    // ---- a one-million-step struct log, memory on: streamed from the service's temporary file ----
    if (!only || STRUCT_LOG_1M_ROW.includes(only)) {
      if (stops.length > 1) {
        await stops.pop()!()
      }
      const s3 = await startService(anvil.url, 2)
      try {
        const r = await measureStructLog1m({ service: { url: s3.url, pid: s3.pid, token: TOKEN }, anvilUrl: anvil.url, block: pinned })
        const best = (xs: number[]) => Math.min(...xs)
        const fmt = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(1)).join(', ')
        console.log(
          `\n${STRUCT_LOG_1M_ROW}: debug_traceCall (enableMemory) of a loop contract, pinned block, answer consumed as a stream; ours = the service with WORKERS=2, forking Anvil; runs alternate\n`,
        )
        console.log('| | time per run, s | answer | peak RSS |\n|---|---|---|---|')
        console.log(
          `| ours (WORKERS=2) | ${fmt(r.oursMs)} | ${(r.oursBytes / 1e6).toFixed(0)} MB, ${r.steps} steps | ${r.peakRssMb.toFixed(0)} MB (VmHWM, whole process; goal ≤ 600) |`,
        )
        console.log(`| Anvil debug_traceCall | ${fmt(r.anvilMs)} | ${(r.anvilBytes / 1e6).toFixed(0)} MB | |`)
        console.log(
          `\nours / Anvil: best run each **${(best(r.oursMs) / best(r.anvilMs)).toFixed(2)}**, median each ${(median(r.oursMs) / median(r.anvilMs)).toFixed(2)} (goal ≤ 1)`,
        )
      } finally {
        await s3.stop()
      }
    }

    // the CI-shaped flow on a writable fork (bench/forkFlow.ts), 20 ms a round trip
    if (!only || FORK_FLOW_ROW.includes(only)) {
      const ci = await measureForkFlow({ upstreamUrl: anvil.url, delayMs: 20, token: TOKEN, startService: (rpcUrl) => startService(rpcUrl) })
      console.log(`\n| ${FORK_FLOW_ROW} | ours | Anvil (start included) | ours / Anvil |`)
      console.log('|---|---|---|---|')
      console.log(`| whole flow, ms | ${ci.oursMs.toFixed(0)} | ${ci.anvilMs.toFixed(0)} | **${(ci.oursMs / ci.anvilMs).toFixed(2)}** (goal ≤ 0.5) |`)
      console.log(`| upstream round trips to create the fork | ${ci.createRoundTrips} (goal ≤ 1) | | |`)
    }

    // the same flow through `evm-sim node --fork-url` (bench/nodeFlow.ts), its start included
    if (!only || NODE_FLOW_ROW.includes(only)) {
      for (const line of nodeFlowRows(await measureNodeFlow({ upstreamUrl: anvil.url, delayMs: 20 }))) console.log(line)
    }

    console.log('\n| cold case | ours | Anvil (--fork-url) | ours / Anvil |')
    console.log('|---|---|---|---|')
    for (const line of cold) console.log(line)
    console.log(`\nupstream calls of the cold case, ours: ${coldMethods.ours}\nAnvil's: ${coldMethods.anvil}`)
    if (shared) {
      console.log(`\n| ${SHARED_STATE_ROW} | upstream requests |\n|---|---|`)
      console.log(
        `| a two-hop swap at a fixed block, run on one instance, repeated on a second over the same Redis | ${shared.secondInstanceRequests === undefined ? 'not measured: no redis-server on this machine' : `**${shared.secondInstanceRequests}** (goal 0)`} |`,
      )
      for (const l of shared.latest) {
        console.log(
          `| ${l.requests} swaps at \`latest\`, one after another (${l.ms.toFixed(0)} ms), HEAD_MAX_AGE_MS=${l.maxAgeMs}${l.maxAgeMs === '0' ? ' (`latest` resolved on every request)' : ' (the default)'} | ${l.trips} round trip${l.trips === 1 ? '' : 's'}: **${(l.trips / l.requests).toFixed(2)}** per request |`,
        )
      }
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error('bench failed:', err instanceof Error ? err.message : err)
    process.exit(1)
  },
)
