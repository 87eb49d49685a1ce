/**
 * The wallet preview's doors over real HTTP: alchemy_simulateAssetChanges on /v1/rpc, and
 * POST /v1/simulate/signature on a fork of a real Anvil: a real ERC-2612 permit and
 * each Permit2 message, signed by viem's signTypedData (with and without the signature, and by
 * another key), submitted on chain to show the signatures are real (then NONCE_USED), and typed
 * data the service does not know.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, toHex, type Address, type Hex, type TypedDataDefinition } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { listen, type Listening } from '../../../host/server.js'
import { requireAnvil } from '../../support/anvil.js'
import { A, B, MAX, startPreviewChain, type PreviewChain } from './previewChain.js'

const MNEMONIC = 'test test test test test test test test test test test junk'
const signerA = mnemonicToAccount(MNEMONIC, { addressIndex: 0 })
const signerB = mnemonicToAccount(MNEMONIC, { addressIndex: 1 })
const FAR = 4_000_000_000n
const E18 = 10n ** 18n

let chain: PreviewChain
let server: Listening
let token: string

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function preview(typedData: unknown, signature?: Hex, signer: Address = A): Promise<any> {
  const res = await fetch(`${server.url}/v1/simulate/signature`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ typedData, signer, ...(signature && { signature }) }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
  })
  const json = (await res.json()) as { data: unknown }
  expect(res.status, JSON.stringify(json)).toBe(200)
  return json.data
}
const codes = (p: { warnings: { code: string }[] }) => p.warnings.map((w) => w.code).sort()

const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const
const permit2Types = {
  PermitDetails: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint160' },
    { name: 'expiration', type: 'uint48' },
    { name: 'nonce', type: 'uint48' },
  ],
  PermitSingle: [
    { name: 'details', type: 'PermitDetails' },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
  PermitBatch: [
    { name: 'details', type: 'PermitDetails[]' },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  PermitBatchWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions[]' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'ExampleTrade' },
  ],
  ExampleTrade: [
    { name: 'exchange', type: 'address' },
    { name: 'fee', type: 'uint256' },
  ],
}
/** only the types the primary type reaches, as a wallet receives them */
function reach(primaryType: keyof typeof permit2Types): Record<string, readonly { name: string; type: string }[]> {
  const out: Record<string, readonly { name: string; type: string }[]> = {}
  const visit = (t: string) => {
    const fields = (permit2Types as Record<string, readonly { name: string; type: string }[]>)[t.replace(/\[\]$/, '')]
    if (!fields || out[t.replace(/\[\]$/, '')]) return
    out[t.replace(/\[\]$/, '')] = fields
    fields.forEach((f) => visit(f.type))
  }
  visit(primaryType)
  return out
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(`${server.url}/v1/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  expect(res.status).toBe(200)
  return res.json()
}
const tx = (from: Address, to: Address, abiName: string, fn: string, args: unknown[]) => ({
  from,
  to,
  data: encodeFunctionData({ abi: chain.abi(abiName), functionName: fn, args }),
})

describe.runIf(requireAnvil())('wallet preview over HTTP', () => {
  beforeAll(async () => {
    chain = await startPreviewChain()
    const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
    token = config.api.auth_token
    server = await listen(
      createApp({ config, engine: chain.engine, cache: createMemoryCacheStore(), logger: createLogger({ level: 'silent', secrets: [] }) }),
      { host: '127.0.0.1', port: 0 },
    )
    // the signer lets Permit2 move its tokens, as every Permit2 user does once
    await chain.send(A, chain.at.permitToken!, 'PermitToken', 'approve', [chain.at.permit2, MAX])
    await chain.send(A, chain.at.usdt!, 'TetherToken', 'approve', [chain.at.permit2, MAX])
  }, 120_000)
  afterAll(async () => {
    await server?.close(1000)
    await chain?.close()
  })

  it("alchemy_simulateAssetChanges: Alchemy's shape; TRANSFER from the run, APPROVE read from state", async () => {
    const sent = await rpc('alchemy_simulateAssetChanges', [tx(A, chain.at.permitToken!, 'PermitToken', 'transfer', [B, (15n * E18) / 10n])])
    expect(sent).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        changes: [
          {
            assetType: 'ERC20',
            changeType: 'TRANSFER',
            from: A,
            to: B,
            rawAmount: ((15n * E18) / 10n).toString(),
            amount: '1.5',
            contractAddress: chain.at.permitToken,
            tokenId: null,
            decimals: 18,
            symbol: 'PMT',
            name: 'Permit Token',
          },
        ],
        gasUsed: expect.stringMatching(/^0x[0-9a-f]+$/),
        error: null,
      },
    })
    // a token that approves without an event: Alchemy's events see nothing, the state does
    const silent = await rpc('alchemy_simulateAssetChanges', [tx(A, chain.at.silent!, 'SilentToken', 'approve', [B, 12_345_678n]), 'latest'])
    expect(silent.result.changes).toEqual([
      {
        assetType: 'ERC20',
        changeType: 'APPROVE',
        from: A,
        to: B,
        rawAmount: '12345678',
        amount: '0.12345678',
        contractAddress: chain.at.silent,
        tokenId: null,
        decimals: 8,
        symbol: 'HUSH',
      },
    ])
    const nft = await rpc('alchemy_simulateAssetChanges', [tx(A, chain.at.nft!, 'Nft', 'setApprovalForAll', [B, true])])
    expect(nft.result.changes.map((c: { assetType: string; changeType: string; rawAmount: string }) => [c.assetType, c.changeType, c.rawAmount])).toEqual([
      ['ERC721', 'APPROVE', '1'],
    ])
    const failed = await rpc('alchemy_simulateAssetChanges', [tx(B, chain.at.permitToken!, 'PermitToken', 'transferFrom', [A, B, 10n ** 30n])])
    expect(failed.result).toEqual({ changes: [], error: { message: 'execution reverted: allowance' } })
    const bad = await rpc('alchemy_simulateAssetChanges', [])
    expect(bad.error.code).toBe(-32602)
  })

  const permitData = () => ({
    domain: { name: 'Permit Token', version: '1', chainId: 31337, verifyingContract: chain.at.permitToken as Address },
    types: permitTypes,
    primaryType: 'Permit' as const,
    message: { owner: A, spender: B, value: 100n * E18, nonce: 0n, deadline: FAR },
  })

  it('ERC-2612 permit: the approval it creates and what the spender can take now, with and without the signature', async () => {
    const data = permitData()
    const signature = await signerA.signTypedData(data)
    const signed = await preview(data, signature)
    expect(signed).toMatchObject({
      kind: 'erc2612',
      tokens: [chain.at.permitToken],
      spender: B,
      amounts: [toHex(100n * E18)],
      unlimited: false,
      deadline: toHex(FAR),
      nonce: '0x0',
    })
    expect(signed.approvalChanges).toEqual([
      {
        owner: A,
        type: 'erc20',
        token: chain.at.permitToken,
        spender: B,
        before: '0x0',
        after: toHex(100n * E18),
        unlimited: false,
        name: 'Permit Token',
        symbol: 'PMT',
        decimals: 18,
        formatted: '100',
        callIndex: -1,
      },
    ])
    expect(signed.assetChanges.map((c: { account: string; delta: string; formatted: string }) => [c.account, c.formatted])).toEqual([[A, '-100']])
    expect(codes(signed)).toEqual(['APPROVAL_TO_EOA', 'ASSETS_OUT_NOTHING_IN'])
    const unsigned = await preview(data)
    expect({ ...unsigned, blockNumber: 0 }).toEqual({ ...signed, blockNumber: 0 })
    // another key signed it: a danger
    const forged = await preview(data, await signerB.signTypedData(data))
    expect(forged.warnings.find((w: { code: string }) => w.code === 'SIGNER_MISMATCH')).toMatchObject({ severity: 'danger', callIndex: -1, account: A })
    // the signature is real: the token accepts it; previewed again, its nonce is used
    const { r, s, v } = await import('viem').then((m) => m.parseSignature(signature))
    await chain.send(B, chain.at.permitToken!, 'PermitToken', 'permit', [A, B, 100n * E18, FAR, Number(v), r, s])
    expect(codes(await preview(data, signature))).toContain('NONCE_USED')
  })

  it('an expired deadline and another chain id are warnings, not failures', async () => {
    const data = { ...permitData(), message: { ...permitData().message, nonce: 1n, deadline: 1n } }
    expect(codes(await preview(data))).toContain('SIGNATURE_EXPIRED')
    const other = { ...permitData(), domain: { ...permitData().domain, chainId: 1 } }
    expect(codes(await preview(other, await signerA.signTypedData(other)))).toContain('WRONG_CHAIN')
  })

  it('Permit2 PermitSingle: a Permit2 allowance with its expiration; real on chain, then its nonce is used', async () => {
    const expiration = 3_000_000_000n
    const data = {
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: chain.at.permit2 as Address },
      types: reach('PermitSingle'),
      primaryType: 'PermitSingle',
      message: { details: { token: chain.at.permitToken, amount: 50n * E18, expiration, nonce: 0n }, spender: chain.at.puller, sigDeadline: FAR },
    } as const
    const signature = await signerA.signTypedData(data as unknown as TypedDataDefinition)
    const p = await preview(data, signature)
    expect(p).toMatchObject({
      kind: 'permit2-single',
      tokens: [chain.at.permitToken],
      spender: chain.at.puller,
      amounts: [toHex(50n * E18)],
      expiration: toHex(expiration),
      deadline: toHex(FAR),
    })
    expect(
      p.approvalChanges.map((c: { type: string; after: string; expiration: string; permit2: string }) => [c.type, c.after, c.expiration, c.permit2]),
    ).toEqual([['permit2', toHex(50n * E18), toHex(expiration), chain.at.permit2]])
    expect(p.assetChanges.map((c: { account: string; formatted: string }) => [c.account, c.formatted])).toEqual([[A, '-50']])
    expect(codes(p)).toEqual(['ASSETS_OUT_NOTHING_IN', 'PERMIT2_APPROVAL'])
    expect(codes(await preview(data, await signerB.signTypedData(data as unknown as TypedDataDefinition)))).toContain('SIGNER_MISMATCH')
    const permitSingle = {
      details: { token: chain.at.permitToken, amount: 50n * E18, expiration: Number(expiration), nonce: 0 },
      spender: chain.at.puller,
      sigDeadline: FAR,
    }
    await chain.anvil.rpc('eth_sendTransaction', [
      {
        from: B,
        to: chain.at.permit2,
        gas: '0x1e8480',
        data: encodeFunctionData({ abi: chain.abi('Permit2'), functionName: 'permit', args: [A, permitSingle, signature] }),
      },
    ])
    await chain.anvil.rpc('evm_mine')
    const after = await preview(data, signature)
    expect(codes(after)).toContain('NONCE_USED')
  })

  it('Permit2 PermitBatch: an allowance per token', async () => {
    const data = {
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: chain.at.permit2 as Address },
      types: reach('PermitBatch'),
      primaryType: 'PermitBatch',
      message: {
        details: [
          { token: chain.at.permitToken, amount: 2n ** 160n - 1n, expiration: 3_000_000_000n, nonce: 0n },
          { token: chain.at.usdt, amount: 7_000_000n, expiration: 3_100_000_000n, nonce: 0n },
        ],
        spender: B,
        sigDeadline: FAR,
      },
    } as const
    const p = await preview(data, await signerA.signTypedData(data as unknown as TypedDataDefinition))
    expect(p).toMatchObject({ kind: 'permit2-batch', tokens: [chain.at.permitToken, chain.at.usdt], unlimited: true, expiration: toHex(3_100_000_000n) })
    expect(p.approvalChanges.map((c: { token: string; unlimited: boolean; symbol: string }) => [c.token, c.unlimited, c.symbol])).toEqual([
      [chain.at.permitToken, true, 'PMT'],
      [chain.at.usdt, false, 'USDT'],
    ])
    expect(p.assetChanges.map((c: { token: string; formatted: string }) => [c.token, c.formatted])).toEqual([
      [chain.at.permitToken, expect.stringMatching(/^-/)],
      [chain.at.usdt, '-7'],
    ])
    expect(codes(p)).toEqual(['APPROVAL_TO_EOA', 'APPROVAL_TO_EOA', 'ASSETS_OUT_NOTHING_IN', 'PERMIT2_APPROVAL', 'PERMIT2_APPROVAL', 'UNLIMITED_APPROVAL'])
  })

  it('Permit2 PermitTransferFrom: what the spender can take once; real on chain, then its nonce is used', async () => {
    const data = {
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: chain.at.permit2 as Address },
      types: reach('PermitTransferFrom'),
      primaryType: 'PermitTransferFrom',
      message: { permitted: { token: chain.at.usdt, amount: 3_000_000n }, spender: B, nonce: 777n, deadline: FAR },
    } as const
    const signature = await signerA.signTypedData(data as unknown as TypedDataDefinition)
    const p = await preview(data, signature)
    expect(p).toMatchObject({ kind: 'permit2-transfer', tokens: [chain.at.usdt], spender: B, amounts: ['0x2dc6c0'], nonce: toHex(777n), approvalChanges: [] })
    expect(p.assetChanges.map((c: { account: string; formatted: string }) => [c.account, c.formatted])).toEqual([[A, '-3']])
    expect(codes(p)).toEqual(['ASSETS_OUT_NOTHING_IN'])
    expect(codes(await preview(data))).toEqual(['ASSETS_OUT_NOTHING_IN'])
    expect(codes(await preview(data, await signerB.signTypedData(data as unknown as TypedDataDefinition)))).toEqual([
      'ASSETS_OUT_NOTHING_IN',
      'SIGNER_MISMATCH',
    ])
    const abi = chain.abi('Permit2')
    const transferData = encodeFunctionData({
      abi,
      functionName: 'permitTransferFrom',
      args: [{ permitted: { token: chain.at.usdt, amount: 3_000_000n }, nonce: 777n, deadline: FAR }, { to: B, requestedAmount: 3_000_000n }, A, signature],
    })
    await chain.anvil.rpc('eth_sendTransaction', [{ from: B, to: chain.at.permit2, gas: '0x1e8480', data: transferData }])
    await chain.anvil.rpc('evm_mine')
    expect(codes(await preview(data, signature))).toContain('NONCE_USED')
  })

  it('Permit2 PermitBatchWitnessTransferFrom: a witness does not hide the transfer', async () => {
    const data = {
      domain: { name: 'Permit2', chainId: 31337, verifyingContract: chain.at.permit2 as Address },
      types: reach('PermitBatchWitnessTransferFrom'),
      primaryType: 'PermitBatchWitnessTransferFrom',
      message: {
        permitted: [
          { token: chain.at.permitToken, amount: 2n * E18 },
          { token: chain.at.usdt, amount: 1_000_000n },
        ],
        spender: chain.at.puller,
        nonce: 5n,
        deadline: FAR,
        witness: { exchange: B, fee: 3n },
      },
    } as const
    const p = await preview(data, await signerA.signTypedData(data as unknown as TypedDataDefinition))
    expect(p).toMatchObject({ kind: 'permit2-batch-transfer', tokens: [chain.at.permitToken, chain.at.usdt], amounts: [toHex(2n * E18), toHex(1_000_000n)] })
    expect(p.assetChanges.map((c: { formatted: string }) => c.formatted)).toEqual(['-2', '-1'])
    expect(codes(p)).toEqual(['ASSETS_OUT_NOTHING_IN'])
  })

  it('typed data it does not know: kind unknown with the domain and message, never an error', async () => {
    const data = {
      domain: { name: 'Ether Mail', version: '1', chainId: 31337, verifyingContract: '0xcccccccccccccccccccccccccccccccccccccccc' as Address },
      types: {
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'contents', type: 'string' },
        ],
      },
      primaryType: 'Mail',
      message: { from: { name: 'Cow', wallet: '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826' }, contents: 'Hello, Bob!' },
    } as const
    const p = await preview(data, await signerA.signTypedData(data))
    expect(p).toMatchObject({
      kind: 'unknown',
      tokens: [],
      spender: null,
      amounts: [],
      unlimited: false,
      domain: data.domain,
      message: data.message,
      approvalChanges: [],
      assetChanges: [],
      warnings: [],
    })
    expect(codes(await preview(data, await signerB.signTypedData(data)))).toEqual(['SIGNER_MISMATCH'])
  })
})
