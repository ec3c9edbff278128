import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import type {
  Backlog,
  BlockedKey,
  ClaimsAtRisk,
  DeadLetterBatchResult,
  DeadLetterDetail,
  DeadLetterPage,
  LoopSnapshot,
  RowStateRow,
} from '../../../shared/interfaces/admin.interface.js';
import type { DeadInboxMessage, DeadOutboxMessage } from '../../../shared/interfaces/dead-letter.interface.js';
import { DeadLetterService } from '../../../features/dead-letters/dead-letter.service.js';
import { checkTable } from '../../../features/dead-letters/operator-input.js';
import { QueueBoxAdmin } from '../queuebox-admin.service.js';
import { actorOf } from './admin-actor.js';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AdminExceptionFilter } from './admin-exception.filter.js';
import { AdminMutationGuard } from './admin-mutation.guard.js';
import type { AdminRequest } from './admin-http-options.interface.js';
import { QUEUEBOX_ADMIN_SETTINGS } from './admin-http.constants.js';
import { batchBody, flag, idList, listQuery, onlyKnown, type QueryStrings, reportQuery } from './admin-request.js';
import type { AdminSettings } from './admin-settings.js';

/**
 * The admin JSON API, under the module's path: reports of this replica and the database
 * (`QueueBoxAdmin`), and the dead letters of both tables (`DeadLetterService`). Every route needs
 * the bearer token or the application's guard; replays and discards also need a JSON body and
 * `X-QueueBox-Admin: 1` (`AdminMutationGuard`). Answers are never cached.
 */
@Controller()
@UseGuards(AdminAuthGuard)
@UseFilters(AdminExceptionFilter)
export class AdminApiController {
  constructor(
    private readonly admin: QueueBoxAdmin,
    private readonly deadLetters: DeadLetterService,
    @Inject(QUEUEBOX_ADMIN_SETTINGS) private readonly settings: AdminSettings,
  ) {}

  @Get('api/loops')
  @Header('Cache-Control', 'no-store')
  loops(@Query() query: QueryStrings): { workersEnabled: boolean; loops: LoopSnapshot[] } {
    reportQuery(query, []);
    return { workersEnabled: this.admin.workersEnabled, loops: this.admin.loops() };
  }

  @Get('api/backlog')
  @Header('Cache-Control', 'no-store')
  backlog(@Query() query: QueryStrings): Promise<Backlog> {
    reportQuery(query, []);
    return this.admin.backlog();
  }

  @Get('api/blocked-keys')
  @Header('Cache-Control', 'no-store')
  async blockedKeys(@Query() query: QueryStrings): Promise<{ items: BlockedKey[] }> {
    return { items: await this.admin.blockedKeys(reportQuery(query, ['limit'])) };
  }

  @Get('api/claims-at-risk')
  @Header('Cache-Control', 'no-store')
  claimsAtRisk(@Query() query: QueryStrings): Promise<ClaimsAtRisk> {
    return this.admin.claimsAtRisk(reportQuery(query, ['limit', 'withinMs']));
  }

  @Get('api/dead/:table')
  @Header('Cache-Control', 'no-store')
  listDead(
    @Param('table') table: string,
    @Query() query: QueryStrings,
  ): Promise<DeadLetterPage<DeadOutboxMessage | DeadInboxMessage>> {
    return this.deadLetters.list(checkTable(table), listQuery(query));
  }

  @Get('api/dead/:table/:id')
  @Header('Cache-Control', 'no-store')
  inspectDead(
    @Param('table') table: string,
    @Param('id') id: string,
    @Query() query: QueryStrings,
  ): Promise<DeadLetterDetail> {
    onlyKnown(query, ['payload']);
    const payload = flag(query, 'payload');
    return this.deadLetters.inspect(checkTable(table), id, { payload });
  }

  @Get('api/rows/:table')
  @Header('Cache-Control', 'no-store')
  async rowStates(@Param('table') table: string, @Query() query: QueryStrings): Promise<{ items: RowStateRow[] }> {
    onlyKnown(query, ['ids']);
    return { items: await this.deadLetters.rowStates(checkTable(table), idList(query, 'ids')) };
  }

  @Post('api/dead/:table/replay')
  @UseGuards(AdminMutationGuard)
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  replayDead(
    @Param('table') table: string,
    @Body() body: unknown,
    @Req() request: AdminRequest,
  ): Promise<DeadLetterBatchResult> {
    const { selection, chunkSize } = batchBody(body);
    return this.deadLetters.replay(checkTable(table), selection, { chunkSize, actor: actorOf(request, this.settings) });
  }

  @Post('api/dead/:table/discard')
  @UseGuards(AdminMutationGuard)
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  discardDead(
    @Param('table') table: string,
    @Body() body: unknown,
    @Req() request: AdminRequest,
  ): Promise<DeadLetterBatchResult> {
    const { selection, chunkSize } = batchBody(body);
    return this.deadLetters.discard(checkTable(table), selection, {
      chunkSize,
      actor: actorOf(request, this.settings),
    });
  }
}
