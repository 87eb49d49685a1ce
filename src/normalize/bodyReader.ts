/**
 * The REST dialect of the request grammar (src/params/grammar.ts): a problem is a
 * VALIDATION_ERROR whose issue names the body path (`params.calls[0].gas`), in the REST API's
 * words, with a suggestion where one helps. The schemas (src/schemas/) have checked each value's
 * shape before: what is left to refuse here is a bound, a conflict between fields, or a key a
 * schema cannot see (storage slots).
 *
 * @example
 * REST.quantity('0x1', 'params.calls[0].gas', { max: UINT64_MAX, leadingZeros: true }) // 1n
 */
import { joinPath, validationError } from '../errors/apiError.js'
import { type Problem, Reader } from '../params/grammar.js'

/** how the REST API words a problem; the path it names, when not the value's own */
function refusal(path: string, p: Problem): { path: string; message: string; suggestion?: string } {
  switch (p.kind) {
    case 'scalar':
      if (p.fault === 'range') return { path, message: `quantity exceeds ${(p.max ?? (1n << 256n) - 1n).toString(2).length} bits` }
      switch (p.scalar) {
        case 'word':
          return { path, message: 'slot is not a hex quantity' }
        case 'quantity':
          return { path, message: 'expected a hex quantity such as 0x1a' }
        case 'address':
          return { path, message: 'expected an address: 0x followed by 40 hex characters' }
        case 'hash':
          return { path, message: 'expected a hash: 0x followed by 64 hex characters' }
        case 'bool':
          return { path, message: 'expected a boolean' }
        default:
          return { path, message: 'expected hex data: 0x followed by an even number of hex characters' }
      }
    case 'shape':
      return { path, message: p.shape === 'array' ? 'expected an array' : 'expected an object' }
    case 'unknownField':
      return { path: joinPath(path, p.key), message: `unknown key "${p.key}"` }
    case 'said':
      return { path, message: p.why, ...(p.suggestion !== undefined && { suggestion: p.suggestion }) }
    case 'conflict':
      switch (p.conflict) {
        case 'dataInput':
          return { path: joinPath(path, 'input'), message: 'both input and data are set and differ', suggestion: 'send only one of input and data' }
        case 'feeMix':
          return {
            path: joinPath(path, 'gasPrice'),
            message: 'both gasPrice and maxFeePerGas/maxPriorityFeePerGas are set',
            suggestion: 'send gasPrice for a legacy transaction or the EIP-1559 fields, not both',
          }
        case 'stateAndStateDiff':
          return {
            path: joinPath(path, 'state'),
            message: 'both state and storage are set',
            suggestion: 'use storage to patch slots or state to replace all storage, not both',
          }
        case 'twice':
          return { path, message: `address ${p.address} is overridden twice` }
        case 'tipAboveCap':
          return { path: joinPath(path, 'maxPriorityFeePerGas'), message: 'maxPriorityFeePerGas is above maxFeePerGas' }
        case 'chainId':
          return { path: joinPath(path, 'chainId'), message: `chain id ${p.have} is not the chain's (${p.want})` }
      }
  }
}

class BodyReader extends Reader {
  fail(path: string, problem: Problem): never {
    const { suggestion, ...issue } = refusal(path, problem)
    throw validationError([issue], suggestion)
  }
}

/** reads a request body's values; every path it is given is the whole path from the body's root */
export const REST: Reader = new BodyReader()
