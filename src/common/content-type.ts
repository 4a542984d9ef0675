/** A Content-Type header's media type (RFC 9110 §8.3.1): lower case, without its parameters. */
export function contentTypeEssence(header: string | undefined): string {
  return header?.split(';')[0].trim().toLowerCase() ?? '';
}
