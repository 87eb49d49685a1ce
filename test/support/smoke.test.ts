import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireAnvil, startAnvil, type AnvilInstance } from './anvil.js'
import { compile } from './solc.js'

// Proves the real parts the other suites rely on are present and working.
describe('test support', () => {
  let anvil: AnvilInstance | undefined
  beforeAll(async () => {
    if (requireAnvil()) anvil = await startAnvil()
  })
  afterAll(async () => anvil?.stop())

  it('starts a real Anvil that answers JSON-RPC', async () => {
    expect(anvil, 'Anvil missing').toBeDefined()
    expect(await anvil!.rpc('eth_chainId')).toBe('0x7a69')
  })

  it('compiles Solidity with npm solc', () => {
    const { Answer } = compile({ 'A.sol': 'pragma solidity ^0.8.0; contract Answer { function get() external pure returns (uint) { return 42; } }' })
    expect(Answer.bytecode.startsWith('0x60')).toBe(true)
    expect(Answer.abi).toHaveLength(1)
  })
})
