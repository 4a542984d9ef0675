import { Injectable } from '@nestjs/common';
import { CommandGroup } from '../cli/command-group';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../cli/options';
import { printJsonLine, printJsonLines } from '../cli/output';
import { WebhooksService } from './webhooks.service';

/** The `webhooks` sub-commands (@Injectable so that Nest sees its constructor's types). */
@Injectable()
abstract class WebhookCommand extends CommandRunner {
  constructor(protected readonly webhooks: WebhooksService) {
    super();
  }
}

@SubCommand({
  name: 'create',
  description:
    "Create a webhook; prints it as one JSON line with its secret (shown only here). It receives every user's events, private entries included",
})
@Options(
  { flags: '--url <url>', description: 'The receiver: an http or https URL', required: true },
  {
    flags: '--events <events>',
    description:
      'Comma list of rating.created, rating.updated, rating.deleted (default: all three)',
  },
)
export class CreateWebhookCommand extends WebhookCommand {
  async run(_args: string[], options: { url: string; events?: string }): Promise<void> {
    printJsonLine(await this.webhooks.create(options.url, options.events));
  }
}

@SubCommand({ name: 'list', description: 'List the webhooks, one JSON line each (no secrets)' })
export class ListWebhooksCommand extends WebhookCommand {
  async run(): Promise<void> {
    printJsonLines(await this.webhooks.list());
  }
}

@SubCommand({
  name: 'delete',
  arguments: '<id>',
  description: 'Delete a webhook; no attempt is made for it afterwards, retries included',
})
export class DeleteWebhookCommand extends WebhookCommand {
  async run([id]: string[]): Promise<void> {
    await this.webhooks.delete(id);
    printJsonLine({ deleted: id });
  }
}

@SubCommand({
  name: 'deliveries',
  arguments: '<id>',
  description: 'Recent delivery attempts of a webhook, newest first, one JSON line each',
})
export class WebhookDeliveriesCommand extends WebhookCommand {
  async run([id]: string[]): Promise<void> {
    printJsonLines(await this.webhooks.deliveries(id));
  }
}

@Command({
  name: 'webhooks',
  description: 'Manage the webhooks that receive rating events',
  subCommands: [
    CreateWebhookCommand,
    ListWebhooksCommand,
    DeleteWebhookCommand,
    WebhookDeliveriesCommand,
  ],
})
export class WebhooksCommand extends CommandGroup {}
