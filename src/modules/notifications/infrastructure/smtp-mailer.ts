import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createTransport, type Transporter } from 'nodemailer';
import { AppConfig } from '../../../config/app-config';
import { InlineImage, Mailer } from '../application/ports';
import type { EmailMessage } from '../domain/message';

/**
 * E-mail through the SMTP server of SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`; STARTTLS when the
 * server offers it), from MAIL_FROM. One pooled transport per process, made on first use.
 */
@Injectable()
export class SmtpMailer extends Mailer implements OnApplicationShutdown {
  private transport: Transporter | null = null;

  constructor(private readonly config: AppConfig) {
    super();
  }

  get configured(): boolean {
    return this.config.smtpUrl !== null;
  }

  async send(to: string, message: EmailMessage, timeoutMs: number, inline?: InlineImage): Promise<void> {
    if (!this.config.smtpUrl) throw new Error('SMTP_URL is not set on the server');
    this.transport ??= createTransport({
      url: this.config.smtpUrl,
      pool: true,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    await this.transport.sendMail({
      from: this.config.mailFrom,
      to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      // An inline part (multipart/related, Content-Disposition: inline) the HTML names as cid:…: shown by mail clients
      // without fetching anything, where a remote image would be blocked or need a session.
      attachments: inline
        ? [{ filename: inline.filename, content: inline.content, contentType: inline.contentType, cid: inline.cid, contentDisposition: 'inline' }]
        : [],
    });
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }
}
