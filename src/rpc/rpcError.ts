/**
 * A JSON-RPC error object, with geth's codes (rpc/errors.go, execution-apis):
 * -32700 parse error, -32600 invalid request, -32601 method not found, -32602 invalid params,
 * -32603 internal error, -32000 other server errors, 3 execution reverted (data = revert bytes),
 * -38010…-38026, -32015, -32016 the eth_simulateV1 spec's own.
 *
 * @example
 * throw new RpcError(-32602, 'invalid argument 0: hex string without 0x prefix')
 */
export class RpcError extends Error {
  override readonly name = 'RpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** geth's wording for a bad positional param: `invalid argument N: …` */
export const invalidArgument = (index: number, why: string) => new RpcError(-32602, `invalid argument ${index}: ${why}`)
