/**
 * `alchemy_simulateAssetChanges` with the request and result shapes of Alchemy's published
 * reference (docs/wallet-preview.md "alchemy_simulateAssetChanges"): params `[transaction,
 * blockIdentifier?]`, result `{ changes, gasUsed, error }`, each change
 * `{ assetType, changeType, from, to, rawAmount, amount, contractAddress, tokenId, decimals,
 * symbol, name, logo }`. It runs /simulate's engine with traceAssetChanges: TRANSFER changes are
 * the movements of the run's surviving frames (native value of every frame and token events), and
 * APPROVE changes are the approval changes read from state, so an approval without an event, a
 * spent allowance and a revoked NFT approval are reported as the token holds them.
 */
import { formatUnits, type Address } from 'viem'
import type { ApprovalChange, SimulationResult, Transfer } from '../../../engine/types.js'
import { assetChangesParams } from '../params/ethParams.js'
import { method, methodTable } from './table.js'

export interface AlchemyAssetChange {
  assetType: 'NATIVE' | 'ERC20' | 'ERC721' | 'ERC1155' | 'SPECIAL_NFT'
  changeType: 'TRANSFER' | 'APPROVE'
  from: Address
  to: Address
  rawAmount: string
  amount?: string
  contractAddress: Address | null
  tokenId: string | null
  decimals?: number
  symbol?: string
  name?: string
  logo?: string
}

const ASSET_TYPE = { native: 'NATIVE', erc20: 'ERC20', erc721: 'ERC721', erc1155: 'ERC1155' } as const

function transferChange(t: Transfer): AlchemyAssetChange {
  const raw = BigInt(t.amount)
  const change: AlchemyAssetChange = {
    assetType: ASSET_TYPE[t.type],
    changeType: 'TRANSFER',
    from: t.from,
    to: t.to,
    rawAmount: raw.toString(),
    contractAddress: t.token,
    tokenId: t.tokenId ?? null,
  }
  if (t.decimals !== undefined) change.decimals = t.decimals
  if (t.symbol !== undefined) change.symbol = t.symbol
  if (t.name !== undefined) change.name = t.name
  // amount: NATIVE and ERC-20 transfers, in token units (Alchemy's rule)
  if ((t.type === 'native' || t.type === 'erc20') && t.decimals !== undefined) change.amount = formatUnits(raw, t.decimals)
  return change
}

function approveChange(c: ApprovalChange): AlchemyAssetChange {
  const after = BigInt(c.after)
  const nft = c.type !== 'erc20'
  const change: AlchemyAssetChange = {
    assetType: c.type === 'erc1155-all' ? 'ERC1155' : nft ? 'ERC721' : 'ERC20',
    changeType: 'APPROVE',
    from: c.owner,
    to: c.spender,
    rawAmount: after.toString(),
    contractAddress: c.token,
    tokenId: c.tokenId ?? null,
  }
  if (c.decimals !== undefined) change.decimals = c.decimals
  if (c.symbol !== undefined) change.symbol = c.symbol
  if (c.name !== undefined) change.name = c.name
  if (!nft && c.decimals !== undefined) change.amount = formatUnits(after, c.decimals)
  // an NFT approval taken away: amount '0' (Alchemy's "disapprove")
  if (nft && after === 0n) change.amount = '0'
  return change
}

/** Alchemy's result from a simulation with traceAssetChanges and traceTransfers */
export function alchemyResult(result: SimulationResult): { changes: AlchemyAssetChange[]; gasUsed?: string; error: { message: string } | null } {
  const call = result.calls[0]!
  if (call.status !== 'success') {
    const reason = call.error?.revertReason
    return { changes: [], error: { message: reason ? `${call.error!.message}: ${reason}` : (call.error?.message ?? 'execution failed') } }
  }
  const approvals = (result.approvalChanges ?? []).filter((c) => c.type !== 'permit2').map(approveChange)
  return { changes: [...(call.transfers ?? []).map(transferChange), ...approvals], gasUsed: call.gasUsed, error: null }
}

export const ALCHEMY_METHODS = [
  method(['alchemy_simulateAssetChanges'], assetChangesParams, async ({ call, block }, ctx) =>
    alchemyResult(await ctx.engine.simulate(ctx.at, { calls: [call], block, validation: false, traceAssetChanges: true, traceTransfers: true })),
  ),
]

export const alchemyMethods = methodTable(ALCHEMY_METHODS)
