/**
 * The custom errors every decoder here knows without being told: the standard token errors of
 * ERC-6093, the OpenZeppelin v5 access, security and proxy errors, and the Permit2 and ERC-4337
 * errors that most deployed contracts now revert with. Read by the simulation's revert reasons
 * and by the call-tree decoder's bundled ABIs.
 */
export const STANDARD_ERROR_SIGNATURES: readonly string[] = [
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InvalidSender(address sender)',
  'error ERC20InvalidReceiver(address receiver)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error ERC20InvalidApprover(address approver)',
  'error ERC20InvalidSpender(address spender)',
  'error ERC721InvalidOwner(address owner)',
  'error ERC721NonexistentToken(uint256 tokenId)',
  'error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)',
  'error ERC721InvalidSender(address sender)',
  'error ERC721InvalidReceiver(address receiver)',
  'error ERC721InsufficientApproval(address operator, uint256 tokenId)',
  'error ERC721InvalidApprover(address approver)',
  'error ERC721InvalidOperator(address operator)',
  'error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)',
  'error ERC1155InvalidSender(address sender)',
  'error ERC1155InvalidReceiver(address receiver)',
  'error ERC1155MissingApprovalForAll(address operator, address owner)',
  'error ERC1155InvalidApprover(address approver)',
  'error ERC1155InvalidOperator(address operator)',
  'error ERC1155InvalidArrayLength(uint256 idsLength, uint256 valuesLength)',
  'error OwnableUnauthorizedAccount(address account)',
  'error OwnableInvalidOwner(address owner)',
  'error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)',
  'error AccessControlBadConfirmation()',
  'error ReentrancyGuardReentrantCall()',
  'error EnforcedPause()',
  'error ExpectedPause()',
  'error SafeERC20FailedOperation(address token)',
  'error AddressEmptyCode(address target)',
  'error FailedCall()',
  'error ERC1967InvalidImplementation(address implementation)',
  'error InvalidSignature()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidNonce()',
  'error FailedOp(uint256 opIndex, string reason)',
]
