/**
 * ERC-7201 namespaces laid out from the AST: the same struct, declared as a namespace and used as
 * a plain state variable, gets from namespaces.ts exactly the members, slots, offsets and sizes
 * solc gives it in its own storageLayout, over every kind of member; the root slot is ERC-7201's.
 */
import { encodeAbiParameters, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { erc7201Slot, namespacesOfAsts } from '../../../../engine/sources/storageLayout/namespaces.js'
import { compileStandard } from '../../../support/solcStandard.js'

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
type Price is uint96;
interface IToken {}
contract Base {
  enum Mode { Off, On }
  struct Inner { uint8 a; bytes32 b; uint16 c; }
  /// @custom:storage-location erc7201:test.kitchen
  struct Kitchen {
    uint8 small; bool flag; Mode mode; address who; uint128 half; uint128 otherHalf; uint256 full;
    bytes4 sel; int24 tick; Price price; IToken token; uint64[5] packed; address[3] three; Inner inner; uint8 afterStruct;
    string text; bytes blob; mapping(address => mapping(uint256 => Inner)) nested; Inner[] list; uint256[2][3] grid; bool last;
  }
}
contract Uses is Base {
  Kitchen plain;
}
`

describe('ERC-7201 namespaces from the AST', () => {
  it('lays a namespaced struct out as solc lays out the same struct', () => {
    const { output } = compileStandard({ 'K.sol': SOURCE })
    const solc = output.contracts['K.sol']!.Uses.storageLayout as { storage: { type: string }[]; types: Record<string, any> }
    const namespaces = namespacesOfAsts([(output.sources as Record<string, { ast: unknown }>)['K.sol']!.ast])
    const ours = namespaces.get('K.sol:Uses')!
    expect(ours.storage).toHaveLength(1)
    const root = ours.storage[0]!
    expect(root).toMatchObject({ label: 'Kitchen', offset: 0, type: solc.storage[0]!.type })
    const strip = (t: any) => ({ ...t, members: t.members?.map(({ label, slot, offset, type }: any) => ({ label, slot, offset, type })) })
    // every type solc describes for the struct, ours describes the same way
    expect(Object.keys(solc.types).length).toBeGreaterThan(15)
    for (const [id, t] of Object.entries(solc.types)) expect(strip(ours.types[id]), id).toEqual(strip(t))
    expect(namespaces.get('K.sol:Base')?.storage[0]?.label).toBe('Kitchen')
  })

  it('places the root where ERC-7201 says', () => {
    const expected = BigInt(keccak256(encodeAbiParameters([{ type: 'uint256' }], [BigInt(keccak256(toHex('openzeppelin.storage.ERC20'))) - 1n]))) & ~0xffn
    expect(erc7201Slot('openzeppelin.storage.ERC20')).toBe(expected)
    // OpenZeppelin 5's published constant for ERC20Storage
    expect(toHex(expected, { size: 32 })).toBe('0x52c63247e1f47db19d5ce0460030c497f067ca4cebf71ba98eeadabe20bace00')
  })
})
