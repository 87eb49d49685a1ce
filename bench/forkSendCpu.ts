/**
 * Time of a send on a writable fork, in process: the real app over HTTP on the embedded devnet, a
 * fork, an ERC-20 deployed on it, then sequential signed transfers (eth_sendRawTransaction and
 * the receipt, automine), as a CI test sends them. Prints the median and p95 per send; run with
 * `node --cpu-prof --import tsx bench/forkSendCpu.ts` to see where a send's time goes.
 *
 * @example
 * npx tsx bench/forkSendCpu.ts 300
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { startForkApp } from '../test/src/forks/forkApp.js'
import { forkContracts } from '../test/src/forks/contracts.js'

const SENDS = Number(process.argv[2] ?? 300)
const who = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')

const app = await startForkApp()
try {
  const { forkId } = await app.createFork()
  const rpc = async (method: string, params: unknown[] = []) => {
    const r = await app.rpc(forkId, method, params)
    if (r.error) throw new Error(`${method}: ${r.error.message}`)
    return r.result
  }
  const chainId = Number(await rpc('eth_chainId'))
  await rpc('anvil_setBalance', [who.address, '0x3635c9adc5dea00000'])
  let nonce = Number(await rpc('eth_getTransactionCount', [who.address, 'latest']))
  const send = async (to: Hex | null, data: Hex) => {
    const raw = await who.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: nonce++,
      ...(to && { to }),
      data,
      gas: 3_000_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const hash = await rpc('eth_sendRawTransaction', [raw])
    const receipt = (await rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: Hex | null } | null
    if (!receipt) throw new Error('no receipt after an automined send')
    return receipt.contractAddress
  }
  const { Token } = forkContracts()
  const token = (await send(null, encodeDeployData({ abi: Token.abi, bytecode: Token.bytecode, args: [10n ** 24n] })))!
  // signed before the timing: the client's signing is not the service's time
  const raws = await Promise.all(
    Array.from({ length: SENDS }, (_, i) =>
      who.signTransaction({
        chainId,
        type: 'eip1559',
        nonce: nonce + i,
        to: token,
        gas: 3_000_000n,
        maxFeePerGas: 10n ** 11n,
        maxPriorityFeePerGas: 10n ** 9n,
        data: encodeFunctionData({ abi: Token.abi, functionName: 'transfer', args: [`0x${(i + 1).toString(16).padStart(40, '0')}`, BigInt(i + 1)] }),
      }),
    ),
  )
  const times: number[] = []
  // FORK_SEND_PROFILE=<file>: a CPU profile of the timed sends alone (open it in Chrome's DevTools)
  const profiler = process.env.FORK_SEND_PROFILE ? new Session() : undefined
  if (profiler) {
    profiler.connect()
    await profiler.post('Profiler.enable')
    await profiler.post('Profiler.start')
  }
  const cpu0 = process.cpuUsage()
  for (const raw of raws) {
    const t = performance.now()
    const hash = await rpc('eth_sendRawTransaction', [raw])
    if (!(await rpc('eth_getTransactionReceipt', [hash]))) throw new Error('no receipt after an automined send')
    times.push(performance.now() - t)
  }
  const cpu = process.cpuUsage(cpu0)
  if (profiler) writeFileSync(process.env.FORK_SEND_PROFILE!, JSON.stringify((await profiler.post('Profiler.stop')).profile))
  console.log(`CPU per send (the whole process, client's fetch included): ${((cpu.user + cpu.system) / 1000 / SENDS).toFixed(2)} ms`)
  const sorted = [...times].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.floor(sorted.length * p)]!.toFixed(2)
  console.log(
    `${SENDS} sends: median ${at(0.5)} ms, p95 ${at(0.95)} ms, first 20 median ${[...times.slice(0, 20)].sort((a, b) => a - b)[10]!.toFixed(2)} ms, last 20 median ${[...times.slice(-20)].sort((a, b) => a - b)[10]!.toFixed(2)} ms`,
  )
} finally {
  await app.close()
}
