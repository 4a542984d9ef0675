import { CommandGroup } from '../common/cli/command-group';
import { Command } from 'nest-commander';
import { deleteCommand, serviceCommand } from '../common/cli/service-command';
import { WebhooksService } from './webhooks.service';

export const CreateWebhookCommand = serviceCommand(WebhooksService, {
  className: 'CreateWebhookCommand',
  name: 'create',
  description:
    "Create a webhook; prints it as one JSON line with its secret (shown only here). It receives every user's events, private entries included",
  options: [
    { flags: '--url <url>', description: 'The receiver: an http or https URL', required: true },
    {
      flags: '--events <events>',
      description:
        'Comma list of rating.created, rating.updated, rating.deleted (default: all three)',
    },
  ],
  run: (webhooks, options: { url: string; events?: string }) =>
    webhooks.create(options.url, options.events),
});

export const ListWebhooksCommand = serviceCommand(WebhooksService, {
  className: 'ListWebhooksCommand',
  name: 'list',
  description: 'List the webhooks, one JSON line each (no secrets)',
  run: (webhooks) => webhooks.list(),
});

export const DeleteWebhookCommand = deleteCommand(WebhooksService, {
  className: 'DeleteWebhookCommand',
  arguments: '<id>',
  description: 'Delete a webhook; no attempt is made for it afterwards, retries included',
});

export const WebhookDeliveriesCommand = serviceCommand(WebhooksService, {
  className: 'WebhookDeliveriesCommand',
  name: 'deliveries',
  arguments: '<id>',
  description: 'Recent delivery attempts of a webhook, newest first, one JSON line each',
  run: (webhooks, _options, [id]) => webhooks.deliveries(id),
});

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
