/**
 * l1Info: the L1 attributes deposit a block of an OP-stack chain this service mines (a writable
 * fork's) starts with (specs: deposits "L1 Attributes Deposited Transaction", ecotone/, isthmus/
 * and jovian/ l1-attributes). There is no L1 here: the block keeps its parent's L1 origin, so the
 * deposit writes back the L1Block predeploy's values as they are, its sequence number one higher,
 * in the calldata layout of the block's fork; from Jovian a DA footprint gas scalar still 0 is
 * written as the default 400, as the derivation writes the SystemConfig's unset one. Gas limit 1 000 000, from the depositor account, no
 * mint, not a system transaction (Regolith on), source hash of the L1 info deposit domain (1):
 * keccak256(bytes32(1) ‖ keccak256(l1BlockHash ‖ bytes32(sequenceNumber))).
 *
 * @example
 * const deposit = await l1InfoDeposit(state, 'isthmus') // { from, to, data, gas, sourceHash, ... }
 */
import type { StateManagerInterface } from '@ethereumjs/common'
import { Address as EjsAddress, bytesToBigInt, bytesToHex, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { concatHex, encodeFunctionData, keccak256, numberToHex, parseAbi, type Address, type Hex } from 'viem'
import type { DepositInput } from './deposit.js'
import { opActive, type OpFork } from './forks.js'
import { DA_FOOTPRINT_GAS_SCALAR_DEFAULT, L1_BLOCK } from './l1Fee.js'

/** the L1 attributes depositor (specs: deposits) */
export const L1_INFO_DEPOSITOR: Address = '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001'
const L1_INFO_GAS = 1_000_000n

const SELECTOR = { ecotone: '0x440a5e20', isthmus: '0x098999be', jovian: '0x3db6be2b' } as const
const bedrockAbi = parseAbi([
  'function setL1BlockValues(uint64 _number, uint64 _timestamp, uint256 _basefee, bytes32 _hash, uint64 _sequenceNumber, bytes32 _batcherHash, uint256 _l1FeeOverhead, uint256 _l1FeeScalar)',
])

const l1Block = new EjsAddress(hexToBytes(L1_BLOCK))

async function word(state: StateManagerInterface, n: number): Promise<Uint8Array> {
  return setLengthLeft(await state.getStorage(l1Block, setLengthLeft(new Uint8Array([n]), 32)), 32)
}

/** big-endian field of a storage word: `size` bytes ending `fromEnd` bytes before its end */
const packed = (w: Uint8Array, fromEnd: number, size: number): bigint => bytesToBigInt(w.subarray(32 - fromEnd - size, 32 - fromEnd))
const fixed = (n: bigint, bytes: number): Hex => numberToHex(n, { size: bytes })

/** the L1 attributes deposit of the next block, read from L1Block's storage in `state` (its parent's) */
export async function l1InfoDeposit(state: StateManagerInterface, fork: OpFork): Promise<DepositInput> {
  const [w0, w1, w2, w3, w4, w5, w6, w7, w8] = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => word(state, n)))
  // slot 0: number (low 8 bytes), timestamp; slot 3: sequenceNumber (low 8), blobBaseFeeScalar, baseFeeScalar
  const l1Number = packed(w0!, 0, 8)
  const l1Time = packed(w0!, 8, 8)
  const l1Hash = bytesToHex(w2!) as Hex
  const batcherHash = bytesToHex(w4!) as Hex
  const sequenceNumber = packed(w3!, 0, 8) + 1n
  let data: Hex
  if (!opActive(fork, 'ecotone')) {
    data = encodeFunctionData({
      abi: bedrockAbi,
      args: [l1Number, l1Time, bytesToBigInt(w1!), l1Hash, sequenceNumber, batcherHash, bytesToBigInt(w5!), bytesToBigInt(w6!)],
    })
  } else {
    const selector = opActive(fork, 'jovian') ? SELECTOR.jovian : opActive(fork, 'isthmus') ? SELECTOR.isthmus : SELECTOR.ecotone
    const parts: Hex[] = [
      selector,
      fixed(packed(w3!, 12, 4), 4), // baseFeeScalar
      fixed(packed(w3!, 8, 4), 4), // blobBaseFeeScalar
      fixed(sequenceNumber, 8),
      fixed(l1Time, 8),
      fixed(l1Number, 8),
      bytesToHex(w1!) as Hex, // basefee
      bytesToHex(w7!) as Hex, // blobBaseFee
      l1Hash,
      batcherHash,
    ]
    if (opActive(fork, 'isthmus')) parts.push(fixed(packed(w8!, 8, 4), 4), fixed(packed(w8!, 0, 8), 8))
    if (opActive(fork, 'jovian')) {
      // a zero scalar is the SystemConfig's unset one, which the deposit replaces by the default
      const scalar = packed(w8!, 12, 2)
      parts.push(fixed(scalar === 0n ? DA_FOOTPRINT_GAS_SCALAR_DEFAULT : scalar, 2))
    }
    data = concatHex(parts)
  }
  const sourceHash = keccak256(concatHex([fixed(1n, 32), keccak256(concatHex([l1Hash, fixed(sequenceNumber, 32)]))]))
  return { sourceHash, from: L1_INFO_DEPOSITOR, to: L1_BLOCK, mint: 0n, value: 0n, gas: L1_INFO_GAS, isSystemTx: !opActive(fork, 'regolith'), data }
}
