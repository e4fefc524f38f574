/** One mail: plain text, and the same in simple HTML. */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/**
 * The platform's way to send mail (notifications now; the portal's invitations and password
 * resets later). `SMTP_URL` unset: `isConfigured` is false and nothing is sent.
 */
export interface Mailer {
  readonly isConfigured: boolean;
  /** Rejects when the mail server refused it or could not be reached. */
  send(message: MailMessage): Promise<void>;
  close?(): void;
}

/** No mail server configured: nothing is sent. */
export const NO_MAIL: Mailer = Object.freeze({ isConfigured: false, send: async () => {} });

/** Escapes text for the HTML part. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
