/**
 * The excess blob gas of a simulated block against ethereumjs' own header rule
 * (BlockHeader.calcNextExcessBlobGas) on mainnet's schedule: Prague (target 6 blobs), Osaka
 * (EIP-7918's reserve price) and BPO2 (target 14), around each target and on both sides of the
 * reserve price.
 */
import { createBlockHeader } from '@ethereumjs/block'
import { describe, expect, it } from 'vitest'
import { createCommonFactory, createGenesisCommonFactory } from '../../../../engine/platform/hardfork.js'
import { nextExcessBlobGas } from '../../../../engine/operations/simulateV1/blobGas.js'

const commonFor = createCommonFactory(1)
// mainnet: Prague 2025-05-07, Osaka 2025-12-03, BPO2 2026-01-07
const FORKS = { prague: 1_747_000_000n, osaka: 1_765_000_000n, bpo2: 1_768_000_000n }
const GAS_PER_BLOB = 131_072n

describe('nextExcessBlobGas', () => {
  it('is what ethereumjs computes for the child of a parent, fork by fork', () => {
    for (const [fork, timestamp] of Object.entries(FORKS)) {
      const child = commonFor({ number: 23_000_000n, timestamp: timestamp + 12n })
      expect(child.hardfork()).toBe(fork)
      for (const excess of [0n, 3n * GAS_PER_BLOB, 20n * GAS_PER_BLOB, 400n * GAS_PER_BLOB]) {
        for (const used of [0n, 1n * GAS_PER_BLOB, 6n * GAS_PER_BLOB, 9n * GAS_PER_BLOB, 21n * GAS_PER_BLOB]) {
          for (const baseFee of [0n, 7n, 30_000_000_000n]) {
            const parent = createBlockHeader(
              { number: 22_999_999n, timestamp, excessBlobGas: excess, blobGasUsed: used, baseFeePerGas: baseFee, gasLimit: 36_000_000n },
              { common: commonFor({ number: 22_999_999n, timestamp }), skipConsensusFormatValidation: true },
            )
            // the header's Common carries the block parameters; the child's fork decides the schedule
            const childOfHeader = parent.common.copy()
            childOfHeader.setHardforkBy({ blockNumber: 23_000_000n, timestamp: timestamp + 12n })
            const want = parent.calcNextExcessBlobGas(childOfHeader)
            expect(nextExcessBlobGas(child, { excessBlobGas: excess, blobGasUsed: used, baseFeePerGas: baseFee }), `${fork} ${excess} ${used} ${baseFee}`).toBe(
              want,
            )
          }
        }
      }
    }
  })

  it("follows a geth genesis' own blobSchedule, BPO forks included (where ethereumjs' header rule cannot read it)", () => {
    const blobSchedule = {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
    }
    const commonFor = createGenesisCommonFactory({
      config: {
        chainId: 7,
        homesteadBlock: 0,
        eip150Block: 0,
        eip155Block: 0,
        eip158Block: 0,
        byzantiumBlock: 0,
        constantinopleBlock: 0,
        petersburgBlock: 0,
        istanbulBlock: 0,
        berlinBlock: 0,
        londonBlock: 0,
        mergeNetsplitBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        osakaTime: 10,
        bpo1Time: 20,
        blobSchedule,
      } as never,
      nonce: '0x0',
      timestamp: '0x0',
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      mixHash: `0x${'00'.repeat(32)}`,
      coinbase: `0x${'00'.repeat(20)}`,
      extraData: '0x',
      alloc: {},
    })
    const parent = { excessBlobGas: 0n, blobGasUsed: 15n * GAS_PER_BLOB, baseFeePerGas: 0n }
    // 15 blobs against a target of 6 (Prague, Osaka) and of 10 (BPO1)
    expect(nextExcessBlobGas(commonFor({ number: 1n, timestamp: 5n }), parent)).toBe(9n * GAS_PER_BLOB)
    expect(nextExcessBlobGas(commonFor({ number: 1n, timestamp: 15n }), parent)).toBe(9n * GAS_PER_BLOB)
    expect(nextExcessBlobGas(commonFor({ number: 1n, timestamp: 25n }), parent)).toBe(5n * GAS_PER_BLOB)
  })
})
