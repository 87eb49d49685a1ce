/**
 * `npm run bench`: the service against Anvil on the same inputs, in the same run, on this machine.
 * Absolute times on shared 2-core machines are noise; the ratios (ours / Anvil) are the result.
 *
 * What runs: a real Anvil; an ERC-20 and a two-hop router compiled with solc and deployed on it;
 * the real service as `npm start` runs it (built by `npm run build`, `node dist/src/main.js`, one
 * worker) forking that Anvil through a request-counting proxy;
 * and for the cold case, a fresh Anvil forking the first one through another proxy (with 0 and
 * 20 ms added per round trip).
 * Each warm operation is timed over HTTP, sequentially, after a warm-up; medians are compared.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { encodeFunctionData, type Abi, type Hex } from 'viem'
import { DEV_ACCOUNTS, freePort, startAnvil, type AnvilInstance } from '../test/support/anvil.js'
import { compile } from '../test/support/solc.js'
import { startCountingProxy } from '../test/engine/workers/countingProxy.js'

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 150)
const WARMUP = 15
const TOKEN = 'bench-token'

const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Token {
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
    function transfer(address to, uint256 v) external returns (bool) {
        balanceOf[msg.sender] -= v; balanceOf[to] += v; emit Transfer(msg.sender, to, v); return true;
    }
}
/// Two hops through two pools: touches four contracts, like a small swap route.
contract Pool {
    Token public a; Token public b; uint256 public reserve;
    constructor(Token a_, Token b_) { a = a_; b = b_; }
    function swap(address to, uint256 v) external returns (uint256 out) { reserve += v; out = v * 997 / 1000; b.transfer(to, out); }
}
contract Router {
    function route(Pool p1, Pool p2, address to, uint256 v) external returns (uint256) {
        uint256 mid = p1.swap(address(p2), v);
        return p2.swap(to, mid);
    }
}`

interface Sample { name: string; ours: number[]; anvil: number[] }

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

async function startService(rpcUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort()
  // BENCH_PROFILE_DIR=/tmp/prof: the service writes a V8 CPU profile there when it stops
  const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []
  const child: ChildProcess = spawn(process.execPath, [...profile, 'dist/src/main.js'], {
    env: { ...process.env, APP_ENV: 'test', PORT: String(port), RPC_URL: rpcUrl, AUTH_TOKEN: TOKEN, WORKERS: '1', RATE_LIMIT_REQUESTS: '100000000', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error('service exited at start')
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error('service did not start')
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    stop: () => new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM') }),
  }
}

async function post(url: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body) })
  const json = (await res.json()) as { success: boolean }
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
    const transfer = { from, to: tokenA, data: encodeFunctionData({ abi: c.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[1], 10n ** 18n] }) }
    const swap = { from, to: router, data: encodeFunctionData({ abi: c.Router!.abi, functionName: 'route', args: [pool1, pool2, DEV_ACCOUNTS[2], 10n ** 18n] }) }

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
      const svc = await startService(proxy.url)
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
      )
    }

    // ---- warm: the same operation many times against a warm fork ----
    const svc = await startService(anvil.url)
    stops.push(() => svc.stop())
    const ops: { name: string; ours: () => Promise<unknown>; anvil: () => Promise<unknown> }[] = [
      { name: 'simulate ERC-20 transfer (vs eth_call)', ours: () => post(svc.url, '/simulate', { params: { calls: [transfer], blockTag: 'latest' } }), anvil: () => anvil.rpc('eth_call', [transfer, 'latest']) },
      { name: 'simulate two-hop swap (vs eth_call)', ours: () => post(svc.url, '/simulate', { params: { calls: [swap], blockTag: 'latest' } }), anvil: () => anvil.rpc('eth_call', [swap, 'latest']) },
      { name: 'callTracer, two-hop swap', ours: () => post(svc.url, '/trace/call', { call: swap, tracerConfig: { callTracer: {} } }), anvil: () => anvil.rpc('debug_traceCall', [swap, 'latest', { tracer: 'callTracer' }]) },
      { name: 'prestateTracer, two-hop swap', ours: () => post(svc.url, '/trace/call', { call: swap, tracerConfig: { prestateTracer: {} } }), anvil: () => anvil.rpc('debug_traceCall', [swap, 'latest', { tracer: 'prestateTracer' }]) },
      { name: 'struct logs (no memory), two-hop swap', ours: () => post(svc.url, '/trace/call', { call: swap, tracerConfig: { structLogger: { disableMemory: true } } }), anvil: () => anvil.rpc('debug_traceCall', [swap, 'latest', {}]) },
      { name: 'access list, two-hop swap', ours: () => post(svc.url, '/simulate/access-list', { params: swap, block: 'latest' }), anvil: () => anvil.rpc('eth_createAccessList', [swap, 'latest']) },
    ]
    const samples: Sample[] = []
    for (const op of ops.filter((o) => !only || o.name.includes(only))) {
      for (let i = 0; i < WARMUP; i++) { await op.ours(); await op.anvil() }
      const s: Sample = { name: op.name, ours: [], anvil: [] }
      // interleaved so both see the same machine load
      for (let i = 0; i < ITERATIONS; i++) {
        s.ours.push(await timeIt(op.ours))
        s.anvil.push(await timeIt(op.anvil))
      }
      samples.push(s)
    }

    console.log(`\nbench: ${ITERATIONS} sequential requests each over HTTP on 127.0.0.1, after ${WARMUP} warm-up; ours = the service (1 worker) forking Anvil\n`)
    console.log('| operation | ours median (p95) ms | Anvil median (p95) ms | ours / Anvil |')
    console.log('|---|---|---|---|')
    for (const s of samples) {
      console.log(`| ${s.name} | ${median(s.ours).toFixed(2)} (${p95(s.ours).toFixed(2)}) | ${median(s.anvil).toFixed(2)} (${p95(s.anvil).toFixed(2)}) | ${(median(s.ours) / median(s.anvil)).toFixed(2)} |`)
    }
    console.log('\n| cold case | ours | Anvil (--fork-url) | ours / Anvil |')
    console.log('|---|---|---|---|')
    for (const line of cold) console.log(line)
    console.log(`\nupstream calls of the cold case, ours: ${coldMethods.ours}\nAnvil's: ${coldMethods.anvil}`)
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}

main().then(() => process.exit(0), (err: unknown) => {
  console.error('bench failed:', err instanceof Error ? err.message : err)
  process.exit(1)
})
