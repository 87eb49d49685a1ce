/**
 * Source maps read as solc writes them: the compression rules, pc → instruction index across PUSH
 * data, jump marks of a real compilation, and byte offsets as 1-based lines and columns.
 */
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { codeMap, decompressSourceMap, instructionIndexes, sourcePlace, sourceSlice } from '../../../engine/sources/sourceMap.js'
import type { CompiledCode } from '../../../engine/sources/types.js'

const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }

describe('decompressSourceMap', () => {
  it('an empty field repeats the previous entry, a missing tail too', () => {
    expect(decompressSourceMap('1:2:0:i:1;;3:4;:9::o;-1:::-')).toEqual([
      { offset: 1, length: 2, index: 0, jump: 'i', modifierDepth: 1 },
      { offset: 1, length: 2, index: 0, jump: 'i', modifierDepth: 1 },
      { offset: 3, length: 4, index: 0, jump: 'i', modifierDepth: 1 },
      { offset: 3, length: 9, index: 0, jump: 'o', modifierDepth: 1 },
      { offset: -1, length: 9, index: 0, jump: '-', modifierDepth: 1 },
    ])
    expect(decompressSourceMap('')).toEqual([])
  })
})

describe('instructionIndexes', () => {
  it('counts instructions, not bytes: PUSH data is no instruction', () => {
    // PUSH1 0x80, PUSH2 0x0102, ADD, PUSH32 <32 bytes>, STOP
    const code = new Uint8Array([0x60, 0x80, 0x61, 0x01, 0x02, 0x01, 0x7f, ...new Array(32).fill(0x5b), 0x00])
    const ics = instructionIndexes(code)
    expect([ics[0], ics[1], ics[2], ics[3], ics[4], ics[5], ics[6], ics[7], ics[38], ics[39]]).toEqual([0, -1, 1, -1, -1, 2, 3, -1, -1, 4])
  })
})

describe('sourcePlace', () => {
  const file = { path: 'src/A.sol', content: 'line one\n// é: two bytes\n  revert();\r\nlast' }
  it('1-based line and column, counted in UTF-8 bytes, with the line text', () => {
    const revertAt = Buffer.from(file.content).indexOf('revert')
    expect(sourcePlace(file, revertAt)).toEqual({ line: 3, column: 3, text: '  revert();' })
    expect(sourcePlace(file, 0)).toEqual({ line: 1, column: 1, text: 'line one' })
    expect(sourcePlace(file, Buffer.from(file.content).indexOf('last'))).toEqual({ line: 4, column: 1, text: 'last' })
    expect(sourceSlice(file, revertAt, 6)).toBe('revert')
  })
  it('nothing for a file without text or an offset past it', () => {
    expect(sourcePlace({ path: 'x' }, 0)).toBeUndefined()
    expect(sourcePlace(file, 10_000)).toBeUndefined()
    expect(sourcePlace(file, -1)).toBeUndefined()
  })
})

describe('codeMap over solc output', () => {
  const source = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract C {
    function run(uint256 x) external pure returns (uint256) {
        return _twice(x);
    }
    function _twice(uint256 y) internal pure returns (uint256) {
        return y * 2;
    }
}
`
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'C.sol': { content: source } },
        settings: { outputSelection: { '*': { '*': ['evm.deployedBytecode.object', 'evm.deployedBytecode.sourceMap'] } } },
      }),
    ),
  )
  const runtime = out.contracts['C.sol'].C.evm.deployedBytecode
  const compiled: CompiledCode = { object: runtime.object, sourceMap: runtime.sourceMap, linkReferences: {} }

  it('marks the JUMPs that enter and leave _twice, and maps them into its source', () => {
    const map = codeMap(compiled)
    expect(codeMap(compiled)).toBe(map)
    const code = Buffer.from(runtime.object, 'hex')
    const marked = [...map.jumpMarks.entries()].filter(([, m]) => m !== 0)
    expect(marked.length).toBeGreaterThanOrEqual(2)
    for (const [pc] of marked) expect(code[pc]).toBe(0x56)
    const leaves = marked.filter(([, m]) => m === 2).map(([pc]) => map.elementAt(pc)!)
    const file = { path: 'C.sol', content: source }
    // the function's own exit maps into _twice's definition
    expect(leaves.some((e) => sourceSlice(file, e.offset, e.length)?.startsWith('function _twice'))).toBe(true)
    expect(map.elementAt(1)).toBeUndefined() // PUSH1's data byte
  })
})
