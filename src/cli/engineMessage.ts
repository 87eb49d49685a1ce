/** an engine error's code, message and what to do, in one line for the terminal */
export function engineMessage(e: unknown): string {
  const err = e as { code?: string; message?: string; suggestion?: string; details?: { issues?: { path?: string; message?: string }[] } }
  const issue = err.details?.issues?.[0]
  return [err.code, err.message, issue && `${issue.path ?? ''} ${issue.message ?? ''}`.trim(), err.suggestion].filter(Boolean).join(': ')
}
