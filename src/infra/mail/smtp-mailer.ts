import nodemailer, { type Transporter } from 'nodemailer';
import type { Mailer, MailMessage } from '../../core/mail/mailer';

/** Mail over SMTP with nodemailer (`SMTP_URL`: `smtp://user:pass@host:587`, `smtps://…:465`). */
export class SmtpMailer implements Mailer {
  readonly isConfigured = true;
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }

  close(): void {
    this.transport.close();
  }
}
