/**
 * POST /v1/simulate/signature on DAI's permit: a token compiled here with DAI's
 * `permit(holder, spender, nonce, expiry, allowed, v, r, s)`, its PERMIT_TYPEHASH and `allowed`
 * meaning an unlimited allowance, on a fork of a real Anvil. The typed data is signed by viem;
 * the preview is the same with and without the signature, another key's signature is a danger,
 * and once the signature is submitted on chain its nonce is reported used.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeDeployData, encodeFunctionData, parseSignature, toHex, type Address, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { loadConfig } from '../../../config/loadConfig.js'
import { createMemoryCacheStore } from '../../../host/cache/memoryCacheStore.js'
import { listen, type Listening } from '../../../host/server.js'
import { createEngine, type Engine } from '../../../engine/index.js'
import { createApp } from '../../../src/app.js'
import { createLogger } from '../../../src/logger.js'
import { requireAnvil, startAnvil, type AnvilInstance } from '../../support/anvil.js'
import { compile, type CompiledContract } from '../../support/solc.js'

const SOURCE = `
// SPDX-License-Identifier: AGPL-3.0
pragma solidity ^0.8.20;

/// DAI's permit (dai.sol): holder, nonce, expiry (0: never), allowed (true: uint256 max, false: 0)
contract Dai {
    string public constant name = "Dai Stablecoin"; string public constant symbol = "DAI"; string public constant version = "1";
    uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => uint256) public nonces;
    event Approval(address indexed src, address indexed guy, uint256 wad);
    event Transfer(address indexed src, address indexed dst, uint256 wad);
    bytes32 public DOMAIN_SEPARATOR;
    // keccak256("Permit(address holder,address spender,uint256 nonce,uint256 expiry,bool allowed)")
    bytes32 public constant PERMIT_TYPEHASH = 0xea2aa0a1be11a07ed86d755c93467f4f82362b452371d1ba94d1715123511acb;
    constructor(uint256 chainId_, uint256 supply) {
        DOMAIN_SEPARATOR = keccak256(abi.encode(
            keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
            keccak256(bytes(name)), keccak256(bytes(version)), chainId_, address(this)));
        balanceOf[msg.sender] = supply; emit Transfer(address(0), msg.sender, supply);
    }
    function transfer(address dst, uint256 wad) external returns (bool) { return transferFrom(msg.sender, dst, wad); }
    function transferFrom(address src, address dst, uint256 wad) public returns (bool) {
        require(balanceOf[src] >= wad, "Dai/insufficient-balance");
        if (src != msg.sender && allowance[src][msg.sender] != type(uint256).max) {
            require(allowance[src][msg.sender] >= wad, "Dai/insufficient-allowance");
            allowance[src][msg.sender] -= wad;
        }
        balanceOf[src] -= wad; balanceOf[dst] += wad; emit Transfer(src, dst, wad); return true;
    }
    function approve(address usr, uint256 wad) external returns (bool) { allowance[msg.sender][usr] = wad; emit Approval(msg.sender, usr, wad); return true; }
    function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s) external {
        bytes32 digest = keccak256(abi.encodePacked("\\x19\\x01", DOMAIN_SEPARATOR,
            keccak256(abi.encode(PERMIT_TYPEHASH, holder, spender, nonce, expiry, allowed))));
        require(holder != address(0), "Dai/invalid-address-0");
        require(holder == ecrecover(digest, v, r, s), "Dai/invalid-permit");
        require(expiry == 0 || block.timestamp <= expiry, "Dai/permit-expired");
        require(nonce == nonces[holder]++, "Dai/invalid-nonce");
        uint256 wad = allowed ? type(uint256).max : 0;
        allowance[holder][spender] = wad;
        emit Approval(holder, spender, wad);
    }
}
`

const MNEMONIC = 'test test test test test test test test test test test junk'
const signerA = mnemonicToAccount(MNEMONIC, { addressIndex: 0 })
const signerB = mnemonicToAccount(MNEMONIC, { addressIndex: 1 })
const A = signerA.address.toLowerCase() as Address
const B = signerB.address.toLowerCase() as Address
const MAX = 2n ** 256n - 1n
const SUPPLY = 1_000n * 10n ** 18n

const daiTypes = {
  Permit: [
    { name: 'holder', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
    { name: 'allowed', type: 'bool' },
  ],
} as const

let anvil: AnvilInstance
let engine: Engine
let server: Listening
let token: string
let dai: Address
let contract: CompiledContract

async function mined(hash: Hex) {
  for (let i = 0; i < 400; i++) {
    const r = await anvil.rpc<{ contractAddress: Address; status: Hex } | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error('no receipt')
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function preview(typedData: unknown, signature?: Hex): Promise<any> {
  const res = await fetch(`${server.url}/v1/simulate/signature`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ typedData, signer: A, ...(signature && { signature }) }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
  })
  const json = (await res.json()) as { data: unknown }
  expect(res.status, JSON.stringify(json)).toBe(200)
  return json.data
}
const codes = (p: { warnings: { code: string }[] }) => p.warnings.map((w) => w.code).sort()

describe.runIf(requireAnvil())("DAI's permit on POST /v1/simulate/signature", () => {
  beforeAll(async () => {
    contract = compile({ 'Dai.sol': SOURCE }).Dai!
    anvil = await startAnvil()
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      { from: A, data: encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args: [31337n, SUPPLY] }), gas: '0x989680' },
    ])
    dai = (await mined(hash)).contractAddress.toLowerCase() as Address
    engine = await createEngine({
      rpcUrl: anvil.url,
      cache: createMemoryCacheStore(),
      gasCap: 30_000_000n,
      rpcTimeoutMs: 5_000,
      maxStructLogSteps: 10_000,
      simulationTtlSeconds: 60,
      headMaxAgeMs: 0,
    })
    const config = loadConfig({ env: { APP_ENV: 'test', RPC_URL: '' } })
    token = config.api.auth_token
    server = await listen(createApp({ config, engine, cache: createMemoryCacheStore(), logger: createLogger({ level: 'silent', secrets: [] }) }), {
      host: '127.0.0.1',
      port: 0,
    })
  }, 120_000)
  afterAll(async () => {
    await server?.close(1000)
    await engine?.close()
    await anvil?.stop()
  })

  const permitData = (allowed: boolean, nonce = 0n) => ({
    domain: { name: 'Dai Stablecoin', version: '1', chainId: 31337, verifyingContract: dai },
    types: daiTypes,
    primaryType: 'Permit' as const,
    message: { holder: A, spender: B, nonce, expiry: 0n, allowed },
  })

  it('allowed: an unlimited allowance that never expires, and everything the holder has within reach', async () => {
    const data = permitData(true)
    const signature = await signerA.signTypedData(data)
    const signed = await preview(data, signature)
    expect(signed).toMatchObject({ kind: 'dai-permit', tokens: [dai], spender: B, amounts: [toHex(MAX)], unlimited: true, nonce: '0x0' })
    // expiry 0 never expires: no deadline
    expect(signed.deadline).toBeUndefined()
    expect(signed.approvalChanges).toEqual([
      {
        owner: A,
        type: 'erc20',
        token: dai,
        spender: B,
        before: '0x0',
        after: toHex(MAX),
        unlimited: true,
        name: 'Dai Stablecoin',
        symbol: 'DAI',
        decimals: 18,
        formatted: '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
        callIndex: -1,
      },
    ])
    expect(signed.assetChanges).toEqual([
      expect.objectContaining({
        account: A,
        type: 'erc20',
        token: dai,
        before: toHex(SUPPLY),
        after: '0x0',
        delta: (-SUPPLY).toString(),
        symbol: 'DAI',
        formatted: '-1000',
      }),
    ])
    expect(codes(signed)).toEqual(['APPROVAL_TO_EOA', 'ASSETS_OUT_NOTHING_IN', 'UNLIMITED_APPROVAL'])
    expect(signed.warnings.every((w: { callIndex: number }) => w.callIndex === -1)).toBe(true)

    const unsigned = await preview(data)
    expect({ ...unsigned, blockNumber: 0 }).toEqual({ ...signed, blockNumber: 0 })

    const forged = await preview(data, await signerB.signTypedData(data))
    expect(forged.warnings.find((w: { code: string }) => w.code === 'SIGNER_MISMATCH')).toMatchObject({ severity: 'danger', callIndex: -1, account: A })
    expect(codes(forged)).not.toContain('NONCE_USED')

    // the signature is real: DAI accepts it; previewed again, its nonce is used
    const { r, s, v } = parseSignature(signature)
    const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
      {
        from: B,
        to: dai,
        gas: '0x1e8480',
        data: encodeFunctionData({ abi: contract.abi, functionName: 'permit', args: [A, B, 0n, 0n, true, Number(v), r, s] }),
      },
    ])
    expect((await mined(hash)).status).toBe('0x1')
    const after = await preview(data, signature)
    expect(codes(after)).toContain('NONCE_USED')
    expect(after.warnings.find((w: { code: string }) => w.code === 'NONCE_USED')).toMatchObject({ severity: 'info', callIndex: -1, account: A })
    // the allowance is already what the permit grants: nothing changes
    expect(after.approvalChanges).toEqual([])
  })

  it('not allowed: a revocation, which grants nothing and takes nothing', async () => {
    const data = permitData(false, 1n)
    const p = await preview(data, await signerA.signTypedData(data))
    expect(p).toMatchObject({ kind: 'dai-permit', tokens: [dai], spender: B, amounts: ['0x0'], unlimited: false, nonce: '0x1' })
    // B holds the unlimited allowance the submitted permit gave it: this one revokes it
    expect(p.approvalChanges).toEqual([expect.objectContaining({ owner: A, spender: B, before: toHex(MAX), after: '0x0', unlimited: false })])
    expect(p.assetChanges).toEqual([])
    expect(codes(p)).toEqual([])
  })
})
