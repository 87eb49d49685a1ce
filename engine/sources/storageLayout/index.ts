/**
 * Storage by name: a contract's changed slots told as its Solidity variables, from the storage
 * layout solc wrote into the build-info (see decodeChanges), and variables written by name.
 */
export { contractLayoutOf } from './contractLayout.js'
export { type ContractLayout, type DecodedChange, decodeChanges, EIP1967_SLOTS, type SlotReader, slotHex } from './decodeChanges.js'
export { Preimages } from './preimages.js'
export { layoutAt } from './layoutAt.js'
export { decodeAccounts, type SlotChanges } from './decodeAccounts.js'
export { slotWritesOf, VariableError } from './writeVariables.js'
