/**
 * What a receiver gives a Standard Webhooks library (`standardwebhooks`) to verify our requests:
 * the library base64-decodes its secret, and we key the HMAC with the secret's UTF-8 bytes, so a
 * receiver passes `whsec_` + base64(UTF-8 secret). docs/api.md shows the same line to integrators.
 */
export function receiverLibrarySecret(secret: string): string {
  return `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;
}
