/** Timestamps are kept to the second, as the API shows them (`YYYY-MM-DDThh:mm:ssZ`). */
export function nowToTheSecond(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}

export function toIsoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
