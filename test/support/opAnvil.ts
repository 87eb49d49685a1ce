/**
 * A real Anvil run as an OP-stack node (`--network optimism`: op-revm executes, the engine op-reth
 * uses), for the OP-stack differential tests. Its predeploys start empty: L1Block's fee slots are
 * written directly (the storage layout op-revm and op-geth read, specs: ecotone/l1-attributes,
 * isthmus/l1-attributes), the coinbase is the sequencer fee vault, and `--order fifo` keeps a
 * block's deposits first, as a sequencer orders them.
 *
 * Anvil's deviations from the OP-stack specs, undone or avoided by the tests (each checked there):
 * - a receipt's `depositNonce` is one too high (specs: deposits "Deposit Receipt");
 * - a transaction's trace `gasUsed` is cumulative after the block's first transaction: the gas of
 *   a transaction is taken from its receipt;
 * - a deposit's `hash` in its JSON object is the specs' keccak(0x7e || rlp(fields)), but the block's
 *   hash list, its receipt and every lookup by hash use another one: deposits are looked up by the
 *   hash of the block's list (the service reads the JSON object's);
 * - reading the raw bytes of a deposit (eth_getRawTransactionByHash) aborts Anvil: never asked;
 * - one pending deposit per sender: each deposit of a block comes from its own sender;
 * - Jovian's operator-fee multiplier is not applied: the tests run Isthmus for the operator fee;
 * - under `--hardfork jovian` its precompiles keep Isthmus's input limits (a bn254 pairing of 428
 *   pairs and a G1 MSM of 1807 pairs succeed, both over Jovian's limits): the limits are compared
 *   with Anvil at Isthmus, Jovian's checked against op-revm's numbers (precompiles.test.ts);
 * - under Ecotone and Fjord it applies Prague's EIP-7623 calldata floor (op-revm spec.rs runs them
 *   on Cancun): every transaction of the tests spends more execution gas than its calldata's floor,
 *   so the floor never decides its gas;
 * - under `--hardfork ecotone` it charges Fjord's L1 fee (a block of these tests showed Fjord's
 *   100-byte minimum, 1600 data gas, where Ecotone's formula gives the signed bytes' 1504): the
 *   Ecotone formula is checked against a real OP Mainnet transaction's fee instead (l1Fee.test.ts);
 * - before Ecotone (Bedrock, Regolith, Canyon, Delta) it mines no fee-paying transaction at all:
 *   the pre-Ecotone formula is checked against the specs' vectors only (l1Fee.test.ts).
 */
import { startAnvil, type AnvilInstance } from './anvil.js'

import { L1_BLOCK, SEQUENCER_FEE_VAULT } from '../../engine/chains/rollups/opStack/l1Fee.js'

// the predeploys' addresses (specs: predeploys) and the L1 attributes depositor (specs: deposits
// "L1 Attributes Deposited Transaction"), as the engine states them
export { BASE_FEE_VAULT, L1_BLOCK, L1_FEE_VAULT, OPERATOR_FEE_VAULT, SEQUENCER_FEE_VAULT } from '../../engine/chains/rollups/opStack/l1Fee.js'
export { L1_INFO_DEPOSITOR as DEPOSITOR } from '../../engine/chains/rollups/opStack/l1Info.js'

export interface L1Fees {
  l1BaseFee: bigint
  /** pre-Ecotone */
  overhead?: bigint
  /** pre-Ecotone: the scalar; Ecotone on: baseFeeScalar */
  scalar: bigint
  blobBaseFee?: bigint
  blobBaseFeeScalar?: bigint
  operatorFeeScalar?: bigint
  operatorFeeConstant?: bigint
  /** Jovian: the DA footprint gas scalar */
  daFootprintGasScalar?: bigint
}

const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`
const slot = (n: number) => word(BigInt(n))

/** OP Mainnet's id: Foundry's clients (`cast run`) read a block's deposits only on an OP-stack chain id */
export const OP_CHAIN_ID = 10

export async function startOpAnvil(fork: string): Promise<AnvilInstance> {
  const anvil = await startAnvil({ chainId: OP_CHAIN_ID, args: ['--network', 'optimism', '--order', 'fifo', '--hardfork', fork] })
  await anvil.rpc('anvil_setCoinbase', [SEQUENCER_FEE_VAULT])
  return anvil
}

/**
 * A contract that stores its calldata's size in slot 0 (CALLDATASIZE PUSH0 SSTORE STOP): a first
 * call spends 22100 gas there, more than any test calldata's EIP-7623 floor adds.
 */
export const SINK_CODE = '0x365f5500'

/**
 * Writes L1Block's fee slots as the L1 attributes deposit of the fork would. L1Block gets code
 * (SINK_CODE: slot 0 holds no fee field) so it is never an empty account: an empty account the L1
 * attributes deposit touches is deleted (EIP-161), its storage with it in geth's rules, where
 * op-revm still reads the slots.
 */
export async function setL1Fees(anvil: AnvilInstance, ecotone: boolean, f: L1Fees): Promise<void> {
  await anvil.rpc('anvil_setCode', [L1_BLOCK, SINK_CODE])
  const set = (n: number, v: bigint) => anvil.rpc('anvil_setStorageAt', [L1_BLOCK, slot(n), word(v)])
  await set(1, f.l1BaseFee)
  if (!ecotone) {
    await set(5, f.overhead ?? 0n)
    await set(6, f.scalar)
    return
  }
  // slot 3: sequenceNumber (bytes 24..32) | blobBaseFeeScalar (20..24) | baseFeeScalar (16..20), big-endian
  await set(3, (f.scalar << 96n) | ((f.blobBaseFeeScalar ?? 0n) << 64n) | 1n)
  await set(7, f.blobBaseFee ?? 0n)
  // slot 8: daFootprintGasScalar (bytes 18..20) | operatorFeeScalar (20..24) | operatorFeeConstant (24..32)
  await set(8, ((f.daFootprintGasScalar ?? 0n) << 96n) | ((f.operatorFeeScalar ?? 0n) << 64n) | (f.operatorFeeConstant ?? 0n))
}
