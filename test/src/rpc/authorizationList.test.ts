/**
 * eth_call and eth_estimateGas through POST /v1/rpc with an EIP-7702 `authorizationList` (geth's
 * TransactionArgs field, the SetCodeAuthorization JSON viem sends when it prepares a type-4
 * transaction), on a fork of a real Anvil and against Anvil's answer to the same request: the
 * call runs the delegate's code as the authority; the estimate is within geth's 1.5 % of Anvil's
 * exact minimum and is enough on Anvil; a malformed tuple is refused at its field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile } from '../../support/solc.js'
import { startRpcApp, type RpcApp } from './rpcApp.js'

const hasAnvil = requireAnvil()
const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const authority = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba')
const { Delegate } = compile({
  'Delegate.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Delegate {
    uint256 public count;
    function whoami() external view returns (address) { return address(this); }
    function bump() external returns (uint256) { count += 1; return count; }
}`,
})

type Answer = { result?: unknown; error?: { code: number; message: string } }

describe.runIf(hasAnvil)('JSON-RPC calls with an EIP-7702 authorization list vs Anvil', () => {
  let anvil: AnvilInstance
  let app: RpcApp
  let delegate: Hex
  let authorizationList: Record<string, string>[]
  beforeAll(async () => {
    anvil = await startAnvil()
    const raw = await sender.signTransaction({
      chainId: 31337,
      type: 'eip1559',
      nonce: 0,
      data: encodeDeployData({ abi: Delegate!.abi, bytecode: Delegate!.bytecode }),
      gas: 1_000_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    })
    const hash = await anvil.rpc<Hex>('eth_sendRawTransaction', [raw])
    let receipt: { contractAddress: Hex } | null = null
    while (!receipt) receipt = await anvil.rpc('eth_getTransactionReceipt', [hash])
    delegate = receipt.contractAddress
    const signed = await authority.signAuthorization({ chainId: 31337, address: delegate, nonce: 0 })
    const q = (n: bigint | number) => `0x${n.toString(16)}`
    authorizationList = [
      {
        chainId: q(signed.chainId),
        address: signed.address,
        nonce: q(signed.nonce),
        yParity: q(signed.yParity!),
        r: q(BigInt(signed.r)),
        s: q(BigInt(signed.s)),
      },
    ]
    app = await startRpcApp({ rpcUrl: anvil.url })
  }, 60_000)
  afterAll(async () => {
    await app?.close()
    await anvil?.stop()
  })

  const ours = async (method: string, params: unknown[]): Promise<Answer> => {
    const { json } = await app.rpc({ jsonrpc: '2.0', id: 1, method, params })
    return json.error ? { error: json.error } : { result: json.result }
  }
  const theirs = async (method: string, params: unknown[]): Promise<Answer> => {
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const { result, error } = (await res.json()) as Answer
    return error ? { error } : { result }
  }
  const callOf = (functionName: 'whoami' | 'bump') => ({
    from: sender.address,
    to: authority.address,
    data: encodeFunctionData({ abi: Delegate!.abi, functionName }),
    authorizationList,
  })

  it('eth_call runs the delegate as the authority', async () => {
    const call = callOf('whoami')
    const answer = await ours('eth_call', [call, 'latest'])
    expect(answer.result).toBe(`0x${authority.address.slice(2).toLowerCase().padStart(64, '0')}`)
    expect(answer).toEqual(await theirs('eth_call', [call, 'latest']))
    // without the list the authority has no code: the call returns nothing
    expect((await ours('eth_call', [{ ...call, authorizationList: undefined }, 'latest'])).result).toBe('0x')
  })

  it('eth_estimateGas counts the authorization and is enough on Anvil', async () => {
    const call = callOf('bump')
    const mine = BigInt((await ours('eth_estimateGas', [call, 'latest'])).result as Hex)
    const exact = BigInt((await theirs('eth_estimateGas', [call, 'latest'])).result as Hex)
    expect(mine).toBeGreaterThanOrEqual(exact)
    expect(Number(mine - exact) / Number(mine)).toBeLessThan(0.015)
    // the authorization's intrinsic cost (EIP-7702 PER_EMPTY_ACCOUNT_COST) is in it
    expect(mine).toBeGreaterThan(21_000n + 25_000n)
    expect((await theirs('eth_call', [{ ...call, gas: `0x${mine.toString(16)}` }, 'latest'])).error).toBeUndefined()
  })

  it('refuses a malformed tuple at its field', async () => {
    const bad = async (tuple: Record<string, unknown>) => (await ours('eth_call', [{ ...callOf('whoami'), authorizationList: [tuple] }, 'latest'])).error
    expect(await bad({ ...authorizationList[0], v: '0x1' })).toEqual({ code: -32602, message: 'invalid argument 0: authorizationList[0]: unknown field "v"' })
    const { address: _a, ...noAddress } = authorizationList[0]!
    expect(await bad(noAddress)).toEqual({ code: -32602, message: 'invalid argument 0: authorizationList[0].address: hex string of 20 bytes expected' })
    expect(await bad({ ...authorizationList[0], yParity: '0x100' })).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/authorizationList\[0\]\.yParity/),
    })
  })
})
