/**
 * The state layer's contracts.
 *
 * A `StateSource` is read-only state at one fixed block: the embedded devnet's
 * (`MemoryStateSource`, layered per block) or an upstream fork's (`ForkStateSource`, batched and
 * cached). The per-request `OverlayStateManager` sits on top of a source, holds every write of the
 * request in its own journal and is what the ethereumjs VM talks to.
 *
 * Keys are canonical: addresses lowercase 0x-hex (20 bytes), slots 0x-hex of exactly 32 bytes.
 * Storage values are minimal big-endian bytes (zero = empty array), as ethereumjs stores them.
 */
import type { Hex } from 'viem'

export interface SourceAccount {
  nonce: bigint
  balance: bigint
  /** keccak256 of the code (KECCAK256_NULL for none) */
  codeHash: Uint8Array
  /** present when the source already holds the code (saves a lookup) */
  code?: Uint8Array
}

/** one account (and optionally some of its slots) to read in a batch */
export interface AccountRead {
  address: Hex
  slots?: Hex[]
  /** also load the code (fork: code comes with the account anyway) */
  code?: boolean
}

export interface AccountReadResult {
  account: SourceAccount | undefined
  /** same order as `slots` */
  storage: Uint8Array[]
}

export interface StateSource {
  /** undefined: the account does not exist (or is EIP-161 empty upstream; the EVM treats both alike) */
  getAccount(address: Hex): Promise<SourceAccount | undefined>
  /** empty array for no code */
  getCode(address: Hex): Promise<Uint8Array>
  /** minimal bytes, empty for zero */
  getStorage(address: Hex, slot: Hex): Promise<Uint8Array>
  /** batched reads: one upstream round trip for everything not cached */
  getMany(reads: AccountRead[]): Promise<AccountReadResult[]>
}

/** the storage writes of one account: `cleared` = everything not in `slots` reads as zero */
export interface StorageWrites {
  cleared: boolean
  slots: Map<Hex, Uint8Array>
}

export interface AccountState {
  nonce: bigint
  balance: bigint
  codeHash: Uint8Array
}

/**
 * The net writes of a request (`OverlayStateManager.flatten()`), in the shape a new
 * `MemoryStateSource` layer takes. `accounts` value null = deleted (its code and storage too).
 */
export interface StateWrites {
  accounts: Map<Hex, AccountState | null>
  /** address → new code (empty array = code removed) */
  code: Map<Hex, Uint8Array>
  storage: Map<Hex, StorageWrites>
}
