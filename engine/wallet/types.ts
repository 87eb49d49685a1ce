/** What a run means to a wallet: the permissions it changed and the warnings it raised (re-exported by engine/types.ts). */
import type { Address, Hex } from 'viem'

export type ApprovalType = 'erc20' | 'erc721' | 'erc721-all' | 'erc1155-all' | 'permit2'

/** a permission that changed, read from state before and after (engine/wallet/approvalChanges.ts) */
export interface ApprovalChange {
  owner: Address
  type: ApprovalType
  /** the token (for permit2: the ERC-20 the Permit2 allowance is over) */
  token: Address
  /** spender (erc20, permit2), approved address (erc721) or operator (erc721-all, erc1155-all) */
  spender: Address
  tokenId?: Hex
  /** amount (erc20, permit2) or 0x0/0x1 (erc721, *-all) */
  before: Hex
  after: Hex
  unlimited: boolean
  /** permit2: the allowance's expiration (unix seconds) after the run */
  expiration?: Hex
  /** permit2: the Permit2 contract holding the allowance */
  permit2?: Address
  name?: string
  symbol?: string
  decimals?: number
  /** `after` in token units */
  formatted?: string
  /** the last call of the simulation that touched this permission */
  callIndex: number
}

export type WarningSeverity = 'info' | 'warning' | 'danger'

/** something in a run that should make a user stop (docs/wallet-preview.md lists the codes) */
export interface PreviewWarning {
  code: string
  severity: WarningSeverity
  message: string
  /** -1: not a call of the run (a signature's preview) */
  callIndex: number
  account?: Address
  token?: Address
  spender?: Address
}
