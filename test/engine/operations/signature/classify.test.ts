/**
 * Which EIP-712 messages the signature preview recognises: by primary type and exact field names,
 * with values as wallets send them (numbers, decimal and hex strings); anything else is unknown.
 */
import { describe, expect, it } from 'vitest'
import { classifyTypedData } from '../../../../engine/operations/signature/classify.js'
import type { TypedDataInput } from '../../../../engine/types.js'

const DAI = '0x6b175474e89094c44da98b954eedeac495271d0f'
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const SPENDER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'

const daiPermit = (message: Record<string, unknown>): TypedDataInput => ({
  types: {
    Permit: [
      { name: 'holder', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'nonce', type: 'uint256' },
      { name: 'expiry', type: 'uint256' },
      { name: 'allowed', type: 'bool' },
    ],
  },
  primaryType: 'Permit',
  domain: { name: 'Dai Stablecoin', version: '1', chainId: 1, verifyingContract: DAI },
  message,
})

describe('classifyTypedData', () => {
  it("DAI's permit: allowed grants 2^256-1, expiry 0 never expires", () => {
    expect(classifyTypedData(daiPermit({ holder: OWNER, spender: SPENDER, nonce: 3, expiry: 0, allowed: true }))).toEqual({
      kind: 'dai-permit',
      verifier: DAI,
      spender: SPENDER,
      owner: OWNER,
      grants: [{ token: DAI, amount: 2n ** 256n - 1n }],
      nonce: 3n,
    })
    expect(classifyTypedData(daiPermit({ holder: OWNER, spender: SPENDER, nonce: '0x4', expiry: '1700000000', allowed: false }))).toMatchObject({
      kind: 'dai-permit',
      grants: [{ token: DAI, amount: 0n }],
      nonce: 4n,
      deadline: 1_700_000_000n,
    })
  })

  it('a domain named Permit2 does not make a message Permit2: its fields do', () => {
    const fake: TypedDataInput = {
      types: {
        PermitSingle: [
          { name: 'token', type: 'address' },
          { name: 'spender', type: 'address' },
        ],
      },
      primaryType: 'PermitSingle',
      domain: { name: 'Permit2', chainId: 1, verifyingContract: '0x000000000022d473030f116ddee9f6b43ac78ba3' },
      message: { token: DAI, spender: SPENDER },
    }
    expect(classifyTypedData(fake)).toEqual({ kind: 'unknown', grants: [] })
  })

  it('malformed values are unknown, not an error', () => {
    expect(classifyTypedData(daiPermit({ holder: 'nobody', spender: SPENDER, nonce: 0, expiry: 0, allowed: true })).kind).toBe('unknown')
    expect(classifyTypedData(daiPermit({ holder: OWNER, spender: SPENDER, nonce: 'x', expiry: 0, allowed: true })).kind).toBe('unknown')
  })
})
