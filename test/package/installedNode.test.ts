/**
 * The packed tarball installed into an empty folder: `evm-sim node --fork-url <a real Anvil>`
 * started from it is used as Anvil is — unmodified forge runs a project's tests and a broadcast
 * script against it, cast reads, sends and `cast run`s, viem's wallet and test clients and
 * ethers v6 work unchanged — and the install runs the patched ethereumjs, not a stock copy.
 * A differential runs one script of calls on it and on `anvil --fork-url` of the same upstream.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { JsonRpcProvider, parseEther as ethersParseEther } from 'ethers'
import { createPublicClient, createTestClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, requireAnvil, startAnvil, type AnvilInstance } from '../support/anvil.js'
import { castBinary, requireCast } from '../support/cast.js'
import { packAndInstall, REPO, run, startNode, type PackedInstall, type StartedNode } from '../support/packedInstall.js'
import { compile } from '../support/solc.js'

const require = createRequire(import.meta.url)
const forgeBinary = (() => {
  try {
    const bin = join(dirname(require.resolve('@foundry-rs/forge-linux-amd64/package.json')), 'bin', 'forge')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
})()
if (!forgeBinary && process.env.CI === 'true') throw new Error('FORGE MISSING: @foundry-rs/forge-linux-amd64 is not installed')
const SOLC = join(REPO, 'test/support/bin/solc')
const KEY0: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const KEY1: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const A0: Address = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'

const ready = requireAnvil() && requireCast() && forgeBinary !== undefined
let upstream: AnvilInstance
let pkg: PackedInstall
let node: StartedNode

beforeAll(async () => {
  if (!ready) return
  upstream = await startAnvil()
  pkg = await packAndInstall()
  node = await startNode(pkg.bin, ['--fork-url', upstream.url, '--port', String(await freePort())], pkg.dir)
}, 900_000)
afterAll(async () => {
  await node?.interrupt()
  await upstream?.stop()
})

describe.skipIf(!ready)('evm-sim installed from its tarball', () => {
  it('holds no dev dependency, and runs the patched ethereumjs it ships', async () => {
    const modules = join(pkg.dir, 'node_modules')
    for (const dev of ['vitest', 'typescript', 'tsx', '@biomejs/biome', 'patch-package']) expect(existsSync(join(modules, dev)), dev).toBe(false)
    const probe = await run(process.execPath, [join(REPO, 'test/package/patchedProbe.mjs'), join(modules, 'evm-sim')], { cwd: pkg.dir })
    expect(probe.stderr).toBe('')
    const seen = JSON.parse(probe.stdout) as {
      evmPath: string
      runStepIsAsync: boolean
      bloomSkipped: boolean
      bundled: { patchedLoop: boolean; leanStep: boolean; opcodeTables: boolean }
    }
    // the engine of the install resolves the copy shipped inside the package
    expect(seen.evmPath.startsWith(join(modules, 'evm-sim', 'node_modules', '@ethereumjs', 'evm'))).toBe(true)
    // stock ethereumjs: `async runStep`; patched: a static step runs without a promise
    expect(seen.runStepIsAsync).toBe(false)
    // stock ethereumjs ignores skipLogsBloom and makes the bloom
    expect(seen.bloomSkipped).toBe(true)
    // the node runs the bundle of its start: its interpreter's loop is the patched one, hooks on it
    expect(seen.bundled).toEqual({ patchedLoop: true, leanStep: true, opcodeTables: true })
  })

  it("prints Anvil's start-up lines and answers within a moment of its start", () => {
    const out = node.stdout()
    expect(out).toContain('Available Accounts')
    expect(out).toContain('(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (10000.000000000000000000 ETH)')
    expect(out).toContain(`(0) ${KEY0}`)
    expect(out).toMatch(/Listening on 127\.0\.0\.1:\d+/)
  })

  it('runs forge test --fork-url and forge script --broadcast against it, without a 429', async () => {
    const project = mkdtempSync(join(tmpdir(), 'evm-sim-forge-'))
    cpSync(join(REPO, 'test/fixtures/forgeProject'), project, { recursive: true })
    const tested = await run(forgeBinary!, ['test', '--use', SOLC, '--offline', '--fork-url', node.url], { cwd: project })
    expect(tested.stdout + tested.stderr).toContain('3 passed; 0 failed')
    expect(tested.stdout + tested.stderr).not.toMatch(/429|rate limit/i)
    const script = await run(
      forgeBinary!,
      ['script', 'script/Deploy.s.sol:Deploy', '--use', SOLC, '--offline', '--fork-url', node.url, '--broadcast', '--private-key', KEY1, '--slow'],
      { cwd: project },
    )
    expect(script.code, script.stdout + script.stderr).toBe(0)
    expect(script.stdout).toMatch(/ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/)
  }, 300_000)

  it('answers cast: reads, sends, cast run', async () => {
    const cast = (args: string[]) => run(castBinary()!, [...args, '--rpc-url', node.url], { cwd: pkg.dir })
    expect((await cast(['balance', A0])).stdout.trim()).toBe('10000000000000000000000')
    const sent = await cast(['send', '--private-key', KEY0, '0x000000000000000000000000000000000000beef', '--value', '1ether', '--json'])
    const receipt = JSON.parse(sent.stdout) as { status: string; transactionHash: Hex }
    expect(receipt.status).toBe('0x1')
    expect((await cast(['balance', '0x000000000000000000000000000000000000beef'])).stdout.trim()).toBe('1000000000000000000')
    const unlocked = await cast(['send', '--unlocked', '--from', A0, '0x000000000000000000000000000000000000beef', '--value', '1', '--json'])
    expect((JSON.parse(unlocked.stdout) as { status: string }).status).toBe('0x1')
    const replayed = await cast(['run', receipt.transactionHash])
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toContain('Transaction successfully executed')
  }, 120_000)

  it("works with viem's wallet and test clients and with ethers v6, unchanged", async () => {
    const transport = http(node.url)
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(KEY1) })
    const pub = createPublicClient({ chain: foundry, transport })
    const testClient = createTestClient({ chain: foundry, transport, mode: 'anvil' })
    expect((await wallet.getAddresses())[0]?.toLowerCase()).toBe(privateKeyToAccount(KEY1).address.toLowerCase())
    const hash = await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000cafe', value: parseEther('2') })
    expect((await pub.waitForTransactionReceipt({ hash })).status).toBe('success')
    await testClient.setBalance({ address: '0x000000000000000000000000000000000000f00d', value: parseEther('7') })
    const snapshot = await testClient.snapshot()
    await testClient.mine({ blocks: 2 })
    // viem caches the block number for its polling interval: read afresh each time
    const mined = await pub.getBlockNumber({ cacheTime: 0 })
    await testClient.revert({ id: snapshot })
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(mined - 2n)
    expect(await pub.getBalance({ address: '0x000000000000000000000000000000000000f00d' })).toBe(parseEther('7'))

    const provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true })
    const signer = await provider.getSigner(0)
    const tx = await signer.sendTransaction({ to: '0x000000000000000000000000000000000000d00d', value: ethersParseEther('3') })
    expect((await tx.wait())?.status).toBe(1)
    expect(await provider.getBalance('0x000000000000000000000000000000000000d00d')).toBe(ethersParseEther('3'))
    provider.destroy()
  }, 120_000)
})

/** the `run:` script of the README job's step named `name` */
function readmeStep(name: string): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
  const doc = readme.slice(readme.indexOf('## Forks for CI'))
  const yaml = doc.slice(doc.indexOf('```yaml'), doc.indexOf('```', doc.indexOf('```yaml') + 7))
  const at = yaml.indexOf(`- name: ${name}`)
  const lines = yaml.slice(at).split('\n').slice(1)
  const run = lines[0]!.trim()
  if (run.startsWith('run: ') && run !== 'run: |') return run.slice(5)
  const body: string[] = []
  for (const line of lines.slice(1)) {
    if (!line.startsWith('          ')) break
    body.push(line.slice(10))
  }
  return body.join('\n')
}

describe.skipIf(!ready)("the README's CI job", () => {
  it('starts the node with npx and runs forge test against it', async () => {
    // the job's port, 8545, may be taken on a test machine: the one change made to its lines
    const port = String(await freePort())
    const written = readmeStep('Start a development node on a fork')
    expect(written).toContain('npx evm-sim node --fork-url "$RPC_URL"')
    const start = written.replace('npx evm-sim node', `npx evm-sim node --port ${port}`).replaceAll('8545', port)
    const job = spawn('bash', ['-ec', `${start}\necho READY`], {
      cwd: pkg.dir,
      env: { ...process.env, RPC_URL: upstream.url },
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    try {
      await new Promise<void>((resolve, reject) => {
        job.stdout!.on('data', (d) => String(d).includes('READY') && resolve())
        job.once('exit', (code) => code !== 0 && reject(new Error(`the start step exited ${code}`)))
        setTimeout(() => reject(new Error('the start step did not end within 120 s')), 120_000).unref()
      })
      const project = mkdtempSync(join(tmpdir(), 'evm-sim-ci-'))
      cpSync(join(REPO, 'test/fixtures/forgeProject'), project, { recursive: true })
      const testStep = readmeStep('Test against the fork').replace(/ #.*$/, '').replaceAll('8545', port)
      expect(testStep).toBe(`forge test --fork-url http://127.0.0.1:${port}`)
      const [, ...args] = testStep.split(' ')
      // forge has no compiler offline: the solc wrapper, the one addition
      const tested = await run(forgeBinary!, [...args, '--use', SOLC, '--offline'], { cwd: project })
      expect(tested.stdout + tested.stderr).toContain('3 passed; 0 failed')
    } finally {
      // the step left the node running in the background, as a job does: its process group ends here
      process.kill(-job.pid!, 'SIGINT')
    }
  }, 300_000)
})

describe.skipIf(!ready)('the same calls on evm-sim node and on anvil, each forking one upstream', () => {
  const COUNTER = `pragma solidity ^0.8.20;
contract Counter { uint256 public number; event Set(uint256 n); function set(uint256 n) public { number = n; emit Set(n); } }`

  /** one script of calls; what it saw */
  async function script(url: string) {
    const transport = http(url)
    const pub = createPublicClient({ chain: foundry, transport })
    const accounts = await createWalletClient({ chain: foundry, transport }).getAddresses()
    const wallet = createWalletClient({ chain: foundry, transport, account: accounts[2]! })
    const { Counter } = compile({ 'Counter.sol': COUNTER })
    // each transaction mined before the next is sent: Anvil's automine may otherwise put two in one block
    const mined = async (hash: Hex) => pub.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    const receipts = [await mined(await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000a11ce', value: parseEther('1.5') }))]
    receipts.push(await mined(await wallet.deployContract({ abi: Counter!.abi, bytecode: Counter!.bytecode })))
    const deployed = receipts[1]!.contractAddress!
    receipts.push(await mined(await wallet.writeContract({ address: deployed, abi: Counter!.abi, functionName: 'set', args: [42n] })))
    // left out: what the wall clock decides (block hash, block timestamp), Anvil's `blobGasPrice`
    // on receipts of transactions that carry no blob, which the fork does not give, and the hash
    // (compared apart)
    const strip = ({
      blockHash: _bh,
      blockTimestamp: _bt,
      blobGasPrice: _bp,
      transactionHash: _th,
      logs,
      ...r
    }: (typeof receipts)[number] & { blockTimestamp?: unknown }) => ({
      ...r,
      logs: logs.map(({ blockHash: _lh, blockTimestamp: _lt, transactionHash: _lth, ...l }: (typeof logs)[number] & { blockTimestamp?: unknown }) => l),
    })
    return {
      accounts,
      // eth_sendTransaction without gas: filled as Anvil fills it (its exact estimate), so the same signed transactions
      hashes: receipts.map((r) => r.transactionHash),
      receipts: receipts.map(strip),
      reads: {
        balance: await pub.getBalance({ address: accounts[2]! }),
        alice: await pub.getBalance({ address: '0x00000000000000000000000000000000000a11ce' }),
        nonce: await pub.getTransactionCount({ address: accounts[2]! }),
        code: await pub.getCode({ address: deployed }),
        slot0: await pub.getStorageAt({ address: deployed, slot: '0x0' }),
        number: await pub.readContract({ address: deployed, abi: Counter!.abi, functionName: 'number' }),
        block: await pub.getBlockNumber({ cacheTime: 0 }),
      },
    }
  }

  it('gives the same accounts, receipts and reads', async () => {
    const anvil = await startAnvil({ args: ['--fork-url', upstream.url] })
    const other = await startNode(pkg.bin, ['--fork-url', upstream.url, '--port', String(await freePort()), '--silent'], pkg.dir)
    try {
      const [ours, theirs] = [await script(other.url), await script(anvil.url)]
      expect(ours.accounts).toEqual(theirs.accounts)
      expect(ours.reads).toEqual(theirs.reads)
      expect(ours.receipts).toEqual(theirs.receipts)
      // a transfer, a deployment and a contract call filled as Anvil fills them, field for field: the same signed transactions
      expect(ours.hashes).toEqual(theirs.hashes)
    } finally {
      expect(await other.interrupt()).toBe(0)
      await anvil.stop()
    }
  }, 300_000)
})
