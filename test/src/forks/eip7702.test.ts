/**
 * EIP-7702 on a fork, through viem unmodified: an authority signs an authorization
 * (`signAuthorization`), a sponsor sends the type-4 transaction that carries it (wallet client
 * `sendTransaction` with `authorizationList`); the fork mines it, the authority's code becomes the
 * delegation designator 0xef0100 ‖ delegate, and a call to the authority runs the delegate's code
 * in the authority's storage. On a fork of the embedded devnet, and as a differential against an
 * Anvil forking the same upstream at the same block: the same receipts and the same reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat, createPublicClient, createWalletClient, encodeFunctionData, http, type Address, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile } from '../../support/solc.js'
import { startForkApp, startForkPair, type ForkApp } from './forkApp.js'

const sponsor = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
// an account with no code and no funds: it only signs the authorization
const authority = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba')

const { Delegate } = compile({
  'Delegate.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Delegate {
    uint256 public count;
    event Pinged(address self, address sender, uint256 count);
    function ping() external returns (address) { count += 1; emit Pinged(address(this), msg.sender, count); return address(this); }
    function whoami() external view returns (address) { return address(this); }
}`,
})

/** deploy the delegate, delegate the authority to it, call the authority twice; what a client sees */
async function delegationFlow(rpcUrl: string) {
  const transport = http(rpcUrl)
  const wallet = createWalletClient({ account: sponsor, chain: foundry, transport })
  const pub = createPublicClient({ chain: foundry, transport, cacheTime: 0 })
  const deployed = await pub.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi: Delegate!.abi, bytecode: Delegate!.bytecode }) })
  const delegate = deployed.contractAddress!
  const authorization = await wallet.signAuthorization({ account: authority, contractAddress: delegate })
  const ping = encodeFunctionData({ abi: Delegate!.abi, functionName: 'ping' })
  const hash = await wallet.sendTransaction({ authorizationList: [authorization], to: authority.address, data: ping })
  const receipt = await pub.waitForTransactionReceipt({ hash })
  const tx = await pub.getTransaction({ hash })
  // the node's own JSON of the list (geth's SetCodeAuthorization: quantities, yParity, r, s)
  const rawTx = (await pub.request({ method: 'eth_getTransactionByHash', params: [hash] })) as { authorizationList?: unknown }
  const code = await pub.getCode({ address: authority.address })
  const again = await pub.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: authority.address, data: ping }) })
  const whoami = await pub.readContract({ address: authority.address, abi: Delegate!.abi, functionName: 'whoami' })
  const count = await pub.readContract({ address: authority.address, abi: Delegate!.abi, functionName: 'count' })
  const slot0 = await pub.getStorageAt({ address: authority.address, slot: '0x0' })
  const nonce = await pub.getTransactionCount({ address: authority.address })
  const shape = (r: typeof receipt) => ({
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    effectiveGasPrice: r.effectiveGasPrice,
    from: r.from,
    to: r.to,
    type: r.type,
    logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
  })
  return {
    delegate,
    receipts: [shape(deployed), shape(receipt), shape(again)],
    txType: tx.type,
    authorizationList: tx.authorizationList?.map((a) => ({ address: a.address, chainId: a.chainId, nonce: a.nonce })),
    rawAuthorizationList: rawTx.authorizationList,
    code,
    whoami,
    count,
    slot0,
    nonce,
  }
}

function expectDelegated(out: Awaited<ReturnType<typeof delegationFlow>>) {
  expect(out.receipts.map((r) => r.status)).toEqual(['success', 'success', 'success'])
  expect(out.txType).toBe('eip7702')
  expect(out.receipts[1]!.type).toBe('eip7702')
  expect(out.authorizationList).toEqual([{ address: out.delegate, chainId: 31337, nonce: 0 }])
  expect(out.code).toBe(concat(['0xef0100', out.delegate.toLowerCase() as Address]))
  // the delegate's code ran as the authority: its address, its storage
  expect(out.receipts[1]!.logs[0]!.address).toBe(authority.address.toLowerCase())
  expect(out.whoami).toBe(authority.address)
  expect(out.count).toBe(2n)
  expect(out.slot0).toBe(`0x${'2'.padStart(64, '0')}` as Hex)
  // the authorization used the authority's nonce 0
  expect(out.nonce).toBe(1)
}

describe('EIP-7702 transactions on a fork of the embedded devnet', () => {
  let app: ForkApp
  beforeAll(async () => {
    app = await startForkApp()
  })
  afterAll(async () => {
    await app?.close()
  })

  it('mines a type-4 transaction, sets the delegation and runs the delegate as the authority', async () => {
    const fork = await app.createFork()
    const out = await delegationFlow(fork.rpcUrl)
    expectDelegated(out)
    const fee = await app.rpc(fork.forkId, 'eth_getTransactionCount', [authority.address, 'pending'])
    expect(fee.result).toBe('0x1')
  }, 60_000)
})

describe('EIP-7702 on a fork against Anvil forking the same upstream at the same block', () => {
  const hasAnvil = requireAnvil()
  let upstream: AnvilInstance
  let anvilFork: AnvilInstance
  let app: ForkApp
  let forkBlock: Hex
  let pair: Awaited<ReturnType<typeof startForkPair>> | undefined
  beforeAll(async () => {
    if (!hasAnvil) return
    upstream = await startAnvil()
    await upstream.rpc('evm_mine')
    pair = await startForkPair(upstream)
    ;({ forkBlock, anvilFork, app } = pair)
  }, 60_000)
  afterAll(async () => {
    await pair?.close()
    await upstream?.stop()
  })

  it.runIf(hasAnvil)(
    'gives the same receipts, code and reads',
    async () => {
      const fork = await app.createFork({ blockNumber: forkBlock })
      // a forking Anvil gives its dev accounts 10000 ETH whatever the upstream says: the same on both
      await app.rpc(fork.forkId, 'anvil_setBalance', [sponsor.address, '0x21e19e0c9bab2400000'])
      await anvilFork.rpc('anvil_setBalance', [sponsor.address, '0x21e19e0c9bab2400000'])
      const ours = await delegationFlow(fork.rpcUrl)
      const theirs = await delegationFlow(anvilFork.url)
      expectDelegated(theirs)
      expectDelegated(ours)
      expect(ours).toEqual(theirs)
    },
    120_000,
  )
})
