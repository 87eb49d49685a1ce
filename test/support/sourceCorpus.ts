/**
 * The source-trace corpus (test/fixtures/sources/corpus): one Solidity project compiled by forge
 * 1.7.1 through solc-js (test/fixtures/sources/solc/) under several profiles — the legacy and the
 * via-IR pipelines, the optimizer on and off, solc 0.8.37 and 0.8.26 — and a set of transactions
 * mined on a real node over each profile's contracts: nested and recursive internal calls,
 * modifiers, internal and linked external library functions, immutables, an EIP-1967 proxy,
 * constructors (CREATE, CREATE2, a factory), custom errors, require strings, panics, try/catch.
 *
 * A profile compiles once per machine and test run into the corpus' own `out/` and `cache/`
 * (ignored by git): forge skips a compilation whose inputs did not change, and `cast run
 * --with-local-artifacts` finds the same artifacts there.
 */
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hex } from 'viem'
import { forgeBinary, requireForge } from './forgeBuild.js'

/** forge from npm, found as every forge-backed test finds it */
export { forgeBinary, requireForge }

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'sources', 'corpus')

export type Profile = 'default' | 'opt' | 'ir' | 'old'
export const PROFILES: Profile[] = ['default', 'opt', 'ir', 'old']

/**
 * Each profile's `Ledger` library is deployed by an account of its own at its nonce 0: the address
 * foundry.toml links it at (`libraries`), so forge's and cast's artifacts carry the linked code
 * the chain runs (an unlinked artifact has no bytecode to recognise a contract by).
 */
const LIBRARY_DEPLOYER: Record<Profile, Address> = {
  default: '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc',
  opt: '0x976ea74026e726554db657fa54763abd0c3a0aa9',
  ir: '0x14dc79964da2c08b23698b3d3cc7ca32193d9955',
  old: '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f',
}

/** a foundry binary run in the corpus with a profile; resolves stdout (also on a failing exit when `allowFailure`) */
export function foundry(
  bin: string,
  args: string[],
  profile: Profile,
  opts: { allowFailure?: boolean; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      {
        cwd: CORPUS_DIR,
        timeout: opts.timeoutMs ?? 180_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, ...opts.env, FOUNDRY_PROFILE: profile, NO_COLOR: '1', FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' },
      },
      (err, stdout, stderr) => {
        if (err && !opts.allowFailure) reject(new Error(`${bin} ${args.join(' ')} (${profile}) failed: ${stderr || err.message}\n${stdout}`))
        else resolve(stdout)
      },
    )
  })
}

interface Artifact {
  abi: Abi
  bytecode: { object: Hex }
}

export interface BuiltProfile {
  profile: Profile
  /** forge's build-info file(s) of the profile, as written */
  buildInfos: unknown[]
  artifact(file: string, name: string): Artifact
}

/** `forge build` of one profile (skipped by forge when nothing changed) */
export async function buildProfile(profile: Profile): Promise<BuiltProfile> {
  await foundry(forgeBinary()!, ['build'], profile)
  const out = join(CORPUS_DIR, 'out', profile)
  const infoDir = join(out, 'build-info')
  const buildInfos = readdirSync(infoDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(infoDir, f), 'utf8')) as unknown)
  return {
    profile,
    buildInfos,
    artifact: (file, name) => JSON.parse(readFileSync(join(out, file, `${name}.json`), 'utf8')) as Artifact,
  }
}

/** a transaction of the corpus: what it exercises, and its hash once mined */
export interface CorpusTx {
  profile: Profile
  label: string
  hash: Hex
  status: 'success' | 'reverted'
}

type Rpc = <T = unknown>(method: string, params?: unknown[]) => Promise<T>
type Receipt = { status: Hex; contractAddress: Address | null }

async function receiptOf(rpc: Rpc, hash: Hex): Promise<Receipt> {
  for (let i = 0; i < 200; i++) {
    const receipt = await rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`no receipt for ${hash}`)
}

/**
 * Deploys one profile's contracts on the node and sends the corpus' transactions (reverting ones
 * too: a fixed gas, no estimate). Returns every transaction, the deployments first.
 */
export async function mineProfile(rpc: Rpc, built: BuiltProfile, from: Address, other: Address): Promise<CorpusTx[]> {
  const txs: CorpusTx[] = []
  const send = async (label: string, tx: { to?: Address; data: Hex; from?: Address }): Promise<Receipt> => {
    const hash = await rpc<Hex>('eth_sendTransaction', [{ from: tx.from ?? from, ...(tx.to && { to: tx.to }), data: tx.data, gas: '0x2dc6c0' }])
    const receipt = await receiptOf(rpc, hash)
    txs.push({ profile: built.profile, label, hash, status: receipt.status === '0x1' ? 'success' : 'reverted' })
    return receipt
  }
  const art = (file: string, name: string) => built.artifact(file, name)
  const deploy = async (label: string, a: Artifact, args: unknown[] = [], sender?: Address) => {
    const bytecode = a.bytecode.object
    const data = args.length ? encodeDeployData({ abi: a.abi, bytecode, args }) : bytecode
    return (await send(label, { data, ...(sender && { from: sender }) })).contractAddress!
  }
  await deploy('deploy Ledger (library)', art('Libraries.sol', 'Ledger'), [], LIBRARY_DEPLOYER[built.profile])
  const oracle = await deploy('deploy Oracle', art('Vault.sol', 'Oracle'))
  const vaultArt = art('Vault.sol', 'Vault')
  const vault = await deploy('deploy Vault (constructor, immutables)', vaultArt, [50n, oracle])
  const factoryArt = art('Factory.sol', 'Factory')
  const factory = await deploy('deploy Factory', factoryArt)
  const counter = await deploy('deploy Counter', art('Proxy.sol', 'Counter'))
  const proxy = await deploy('deploy Proxy (EIP-1967)', art('Proxy.sol', 'Proxy'), [counter])

  const call = (label: string, to: Address, abi: Abi, functionName: string, args: unknown[] = [], sender?: Address) =>
    send(label, { to, data: encodeFunctionData({ abi, functionName, args }), ...(sender && { from: sender }) })
  const v = vaultArt.abi
  const counterAbi = art('Proxy.sol', 'Counter').abi
  await call('deposit: modifier, internal, internal library, linked library (DELEGATECALL), event', vault, v, 'deposit', [1000n])
  await call('deposit again', vault, v, 'deposit', [250n])
  await call('withdraw within the balance', vault, v, 'withdraw', [100n])
  await call('withdraw past the balance: custom error', vault, v, 'withdraw', [10_000n])
  await call('sweep by another: require string in a modifier', vault, v, 'sweep', [0n], other)
  await call('sweep by the owner: require string in an internal function', vault, v, 'sweep', [5n])
  await call('fib(6): recursion', vault, v, 'fib', [6n])
  await call('overflow: panic 0x11', vault, v, 'overflow', [100])
  await call('divide by zero: panic 0x12', vault, v, 'divide', [1n, 0n])
  await call('index out of bounds: panic 0x32', vault, v, 'entry', [9n])
  await call('try/catch, the call succeeds', vault, v, 'quoteOrZero', [5n])
  await call('try/catch, the call reverts and is caught', vault, v, 'quoteOrZero', [5000n])
  await call('a nested call reverts through an internal function', vault, v, 'quoteStrict', [5000n])
  await call('external library function (DELEGATECALL)', vault, v, 'squared', [7n])
  await call('factory: CREATE of a vault', factory, factoryArt.abi, 'create', [30n, oracle])
  await call('factory: CREATE2 of a vault', factory, factoryArt.abi, 'create2', [40n, oracle, `0x${'11'.repeat(32)}`])
  await call('proxy: DELEGATECALL to the implementation', proxy, counterAbi, 'increment', [2n])
  await call('proxy: the implementation reverts', proxy, counterAbi, 'increment', [0n])
  return txs
}
