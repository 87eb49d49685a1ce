/**
 * `npx tsx bench/abThroughput.ts <checkoutA> <checkoutB>`: warm `/simulate` transfers a second of two
 * builds of the service (each checkout's dist/, built by `npm run build`) on one Anvil, in process
 * (`WORKERS=1`), 8 in flight, their windows alternating so both see the same machine load; prints
 * each window, the median ratio B / A and each side's main-thread CPU per request. The tool for a
 * change that may move the warm path (the ratio is the result; absolute figures are noise here).
 * `AB_OPERATION=trace` times `/trace/call` of the same transfers with the call tree instead.
 */
import { spawn } from 'node:child_process'
import { encodeFunctionData, encodeDeployData, type Hex } from 'viem'
import { DEV_ACCOUNTS, freePort, startAnvil } from '../test/support/anvil.js'
import { compile } from '../test/support/solc.js'
import { BENCH_SOURCE } from './benchContracts.js'
import { createSocketLoadClient, isRestSuccess } from './socketLoadClient.js'
import { cpuMs } from './threadCpu.js'

const [dirA, dirB] = process.argv.slice(2)
if (!dirA || !dirB) throw new Error('usage: abThroughput.ts <checkoutA> <checkoutB>')
const WINDOW_MS = Number(process.env.AB_WINDOW_MS ?? 4_000)
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5)
const TOKEN = 'ab-token'
const TRACE = process.env.AB_OPERATION === 'trace'

async function startService(dir: string, rpcUrl: string) {
  const port = await freePort()
  // AB_PROFILE_DIR=/tmp/ab: each service writes a V8 CPU profile there (a folder per side) when it stops
  const profile = process.env.AB_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.AB_PROFILE_DIR}/${dir === dirA ? 'A' : 'B'}`] : []
  const child = spawn(process.execPath, [...profile, 'dist/src/main.js'], {
    cwd: dir,
    env: {
      ...process.env,
      APP_ENV: 'test',
      PORT: String(port),
      RPC_URL: rpcUrl,
      AUTH_TOKEN: TOKEN,
      WORKERS: '1',
      PROCESSES: '1',
      RATE_LIMIT_REQUESTS: '100000000',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/v1/health`)).ok) break
    } catch {
      /* not yet */
    }
    if (i > 600) throw new Error(`${dir}: did not start`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}

const anvil = await startAnvil()
try {
  const c = compile({ 'Bench.sol': BENCH_SOURCE })
  const data = encodeDeployData({ abi: c.Token!.abi, bytecode: c.Token!.bytecode, args: [10n ** 30n] })
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [{ from: DEV_ACCOUNTS[0], data, gas: '0x1c9c380' }])
  let token: Hex | undefined
  for (let i = 0; i < 100 && !token; i++) {
    token = (await anvil.rpc<{ contractAddress: Hex } | null>('eth_getTransactionReceipt', [hash]))?.contractAddress
    if (!token) await new Promise((r) => setTimeout(r, 20))
  }
  const pinned = await anvil.rpc<Hex>('eth_blockNumber')
  const transfer = (i: number) => ({
    from: DEV_ACCOUNTS[0],
    to: token,
    data: encodeFunctionData({ abi: c.Token!.abi, functionName: 'transfer', args: [DEV_ACCOUNTS[1], 10n ** 18n + BigInt(i)] }),
  })
  const path = TRACE ? '/v1/trace/call' : '/v1/simulate'
  const body = (i: number) =>
    JSON.stringify(
      TRACE ? { call: transfer(i), blockNumber: pinned, tracerConfig: { callTree: {} } } : { params: { calls: [transfer(i)], blockNumber: pinned } },
    )
  const sides = [await startService(dirA, anvil.url), await startService(dirB, anvil.url)]
  let seq = 0
  /** requests each side answered in all, warm-up included (to set a CPU profile's totals against) */
  const served = [0, 0]
  const window = async (s: (typeof sides)[number], ms: number) => {
    let n = 0
    const end = performance.now() + ms
    const t0 = performance.now()
    const main0 = cpuMs(s.pid)
    // a client per window: the server closes a kept-alive socket idle for its keep-alive timeout
    const client = createSocketLoadClient(s.url, 8)
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < end) {
          const answer = await client.post(path, body(seq++), { authorization: `Bearer ${TOKEN}` })
          if (!isRestSuccess(answer)) throw new Error(answer.subarray(0, 300).toString())
          n++
          served[sides.indexOf(s)]!++
        }
      }),
    )
    client.close()
    return { rps: n / ((performance.now() - t0) / 1000), mainMs: (cpuMs(s.pid) - main0) / n }
  }
  for (const s of sides) await window(s, 12_000) // V8 compiles the hot paths
  const ratios: number[] = []
  const main: number[][] = [[], []]
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0]
    const got: { rps: number; mainMs: number }[] = []
    for (const k of order) got[k] = await window(sides[k]!, WINDOW_MS)
    ratios.push(got[1]!.rps / got[0]!.rps)
    main[0]!.push(got[0]!.mainMs)
    main[1]!.push(got[1]!.mainMs)
    console.log(
      `window ${r}: A ${got[0]!.rps.toFixed(0)} req/s (${got[0]!.mainMs.toFixed(3)} ms main), B ${got[1]!.rps.toFixed(0)} req/s (${got[1]!.mainMs.toFixed(3)} ms main), B/A ${(got[1]!.rps / got[0]!.rps).toFixed(3)}`,
    )
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  console.log(
    `B / A throughput, median of ${ROUNDS} windows: ${med(ratios).toFixed(3)}; main thread per request A ${med(main[0]!).toFixed(3)} ms, B ${med(main[1]!).toFixed(3)} ms`,
  )
  console.log(`requests answered in all (warm-up included): A ${served[0]}, B ${served[1]}`)
  for (const s of sides) s.stop()
  await new Promise((r) => setTimeout(r, 3_000)) // the profiles are written on exit
} finally {
  await anvil.stop()
}
