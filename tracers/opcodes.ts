/**
 * Opcode facts as go-ethereum prints and checks them (core/vm/opcodes.go, jump_table.go): the name
 * geth prints (KECCAK256, not ethereumjs' SHA3; DIFFICULTY for 0x44 in every fork; undefined
 * bytes as `opcode 0xef not defined`) and the stack pops/pushes behind geth's minStack/maxStack
 * checks, which geth runs before the tracer sees the step.
 */
import { toQuantity } from './evmWords.js'

interface OpInfo {
  name: string
  pops: number
  pushes: number
}

const TABLE: Record<number, OpInfo> = {}
function def(code: number, name: string, pops: number, pushes: number): void {
  TABLE[code] = { name, pops, pushes }
}

def(0x00, 'STOP', 0, 0)
def(0x01, 'ADD', 2, 1)
def(0x02, 'MUL', 2, 1)
def(0x03, 'SUB', 2, 1)
def(0x04, 'DIV', 2, 1)
def(0x05, 'SDIV', 2, 1)
def(0x06, 'MOD', 2, 1)
def(0x07, 'SMOD', 2, 1)
def(0x08, 'ADDMOD', 3, 1)
def(0x09, 'MULMOD', 3, 1)
def(0x0a, 'EXP', 2, 1)
def(0x0b, 'SIGNEXTEND', 2, 1)
def(0x10, 'LT', 2, 1)
def(0x11, 'GT', 2, 1)
def(0x12, 'SLT', 2, 1)
def(0x13, 'SGT', 2, 1)
def(0x14, 'EQ', 2, 1)
def(0x15, 'ISZERO', 1, 1)
def(0x16, 'AND', 2, 1)
def(0x17, 'OR', 2, 1)
def(0x18, 'XOR', 2, 1)
def(0x19, 'NOT', 1, 1)
def(0x1a, 'BYTE', 2, 1)
def(0x1b, 'SHL', 2, 1)
def(0x1c, 'SHR', 2, 1)
def(0x1d, 'SAR', 2, 1)
def(0x1e, 'CLZ', 1, 1)
def(0x20, 'KECCAK256', 2, 1)
def(0x30, 'ADDRESS', 0, 1)
def(0x31, 'BALANCE', 1, 1)
def(0x32, 'ORIGIN', 0, 1)
def(0x33, 'CALLER', 0, 1)
def(0x34, 'CALLVALUE', 0, 1)
def(0x35, 'CALLDATALOAD', 1, 1)
def(0x36, 'CALLDATASIZE', 0, 1)
def(0x37, 'CALLDATACOPY', 3, 0)
def(0x38, 'CODESIZE', 0, 1)
def(0x39, 'CODECOPY', 3, 0)
def(0x3a, 'GASPRICE', 0, 1)
def(0x3b, 'EXTCODESIZE', 1, 1)
def(0x3c, 'EXTCODECOPY', 4, 0)
def(0x3d, 'RETURNDATASIZE', 0, 1)
def(0x3e, 'RETURNDATACOPY', 3, 0)
def(0x3f, 'EXTCODEHASH', 1, 1)
def(0x40, 'BLOCKHASH', 1, 1)
def(0x41, 'COINBASE', 0, 1)
def(0x42, 'TIMESTAMP', 0, 1)
def(0x43, 'NUMBER', 0, 1)
def(0x44, 'DIFFICULTY', 0, 1)
def(0x45, 'GASLIMIT', 0, 1)
def(0x46, 'CHAINID', 0, 1)
def(0x47, 'SELFBALANCE', 0, 1)
def(0x48, 'BASEFEE', 0, 1)
def(0x49, 'BLOBHASH', 1, 1)
def(0x4a, 'BLOBBASEFEE', 0, 1)
def(0x50, 'POP', 1, 0)
def(0x51, 'MLOAD', 1, 1)
def(0x52, 'MSTORE', 2, 0)
def(0x53, 'MSTORE8', 2, 0)
def(0x54, 'SLOAD', 1, 1)
def(0x55, 'SSTORE', 2, 0)
def(0x56, 'JUMP', 1, 0)
def(0x57, 'JUMPI', 2, 0)
def(0x58, 'PC', 0, 1)
def(0x59, 'MSIZE', 0, 1)
def(0x5a, 'GAS', 0, 1)
def(0x5b, 'JUMPDEST', 0, 0)
def(0x5c, 'TLOAD', 1, 1)
def(0x5d, 'TSTORE', 2, 0)
def(0x5e, 'MCOPY', 3, 0)
def(0x5f, 'PUSH0', 0, 1)
for (let i = 1; i <= 32; i++) def(0x5f + i, `PUSH${i}`, 0, 1)
for (let i = 1; i <= 16; i++) def(0x7f + i, `DUP${i}`, i, i + 1)
for (let i = 1; i <= 16; i++) def(0x8f + i, `SWAP${i}`, i + 1, i + 1)
for (let i = 0; i <= 4; i++) def(0xa0 + i, `LOG${i}`, 2 + i, 0)
def(0xf0, 'CREATE', 3, 1)
def(0xf1, 'CALL', 7, 1)
def(0xf2, 'CALLCODE', 7, 1)
def(0xf3, 'RETURN', 2, 0)
def(0xf4, 'DELEGATECALL', 6, 1)
def(0xf5, 'CREATE2', 4, 1)
def(0xfa, 'STATICCALL', 6, 1)
def(0xfd, 'REVERT', 2, 0)
def(0xfe, 'INVALID', 0, 0)
def(0xff, 'SELFDESTRUCT', 1, 0)

const STACK_LIMIT = 1024

/** geth's OpCode.String(). */
export function gethOpName(code: number): string {
  return TABLE[code]?.name ?? `opcode ${toQuantity(code)} not defined`
}

/** geth's minStack of an opcode (its pops); per step, where stackBounds' object would cost */
export function minStackOf(code: number): number {
  return TABLE[code]?.pops ?? 0
}

/**
 * How many words at the bottom of a stack of `stackLength` the opcode leaves as they were (it
 * touches at most its top `pops`); 0 for a byte this table does not define (trust nothing).
 */
export function untouchedBelow(code: number, stackLength: number): number {
  const info = TABLE[code]
  return info ? stackLength - info.pops : 0
}

/** geth's maxStack of an opcode (1024 + pops - pushes) */
export function maxStackOf(code: number): number {
  const info = TABLE[code]
  return info ? STACK_LIMIT + info.pops - info.pushes : STACK_LIMIT
}

/** geth's minStack (pops) and maxStack (1024 + pops - pushes) of an opcode. */
export function stackBounds(code: number): { minStack: number; maxStack: number } {
  const info = TABLE[code]
  if (!info) return { minStack: 0, maxStack: STACK_LIMIT }
  return { minStack: info.pops, maxStack: STACK_LIMIT + info.pops - info.pushes }
}

/** what an opcode leaves on the stack (revm's `outputs`); 0 for an undefined byte */
export function opPushes(code: number): number {
  return TABLE[code]?.pushes ?? 0
}

/** revm's OpCode Display: the same names, `UNKNOWN(0xEF)` for an undefined byte (Parity's vmTrace `op`) */
export function revmOpName(code: number): string {
  return TABLE[code]?.name ?? `UNKNOWN(0x${code.toString(16).toUpperCase().padStart(2, '0')})`
}

/** the opcodes the tracers and the adapter single out, by geth's names */
export const OP = {
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  RETURNDATACOPY: 0x3e,
  EXTCODEHASH: 0x3f,
  SLOAD: 0x54,
  SSTORE: 0x55,
  LOG0: 0xa0,
  LOG4: 0xa4,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  SELFDESTRUCT: 0xff,
} as const
