"""Article: the knowledge base. Type, queries (with full-text search), mutations."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import articles
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node, load_by_id
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(description="A knowledge-base article.")
class Article(Node):
    title: str
    body: str
    status: str = strawberry.field(description="`draft` or `published`.")
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None = strawberry.field(
        description="When the article was (last) published; null while it is a draft."
    )

    @classmethod
    def of(cls, article: articles.Article) -> Article:
        return cls(
            id=strawberry.ID(article.id),
            title=article.title,
            body=article.body,
            status=article.status,
            created_at=article.created_at,
            updated_at=article.updated_at,
            published_at=article.published_at,
        )


@strawberry.input(
    description="Every field is checked by the service; failures come back in `error`."
)
class CreateArticleInput:
    title: str | None = strawberry.field(default=None, description="Required; 1–255 characters.")
    body: str | None = strawberry.field(default=None, description="Up to 100,000 characters.")
    status: str | None = strawberry.field(
        default=None, description="`draft` (default) or `published`; any case."
    )


@strawberry.input(description="Change what is given.")
class UpdateArticleInput:
    id: strawberry.ID
    title: str | None = None
    body: str | None = None


@strawberry.input
class ArticleFilter:
    status: str | None = strawberry.field(default=None, description="`draft` or `published`.")
    query: str | None = strawberry.field(
        default=None,
        description="Full-text search: every word must match (stemmed). The list is then "
        "ordered by relevance, then creation.",
    )

    def to_domain(self) -> articles.ArticleFilter:
        return articles.ArticleFilter(status=self.status, query=self.query)


@strawberry.type
class CreateArticlePayload:
    article: Article | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateArticlePayload:
    article: Article | None = None
    error: MutationError | None = None


@strawberry.type
class PublishArticlePayload:
    article: Article | None = None
    error: MutationError | None = None


@strawberry.type
class UnpublishArticlePayload:
    article: Article | None = None
    error: MutationError | None = None


@strawberry.type
class ArticleQueries:
    @strawberry.field(description="One article by its id.")
    async def article(self, info: Info, id: strawberry.ID) -> Article | None:
        return Article.of(await load_by_id(info.context.loaders.article, id, "Article"))

    @strawberry.field(
        description="The workspace's articles, oldest first; with `filter.query`, a full-text "
        "search ordered by relevance."
    )
    async def articles(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: ArticleFilter | None = None,
    ) -> Connection[Article] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "Article")
        where = filter.to_domain() if filter else articles.ArticleFilter()
        page = await articles.list_articles(context.db, context.workspace_id, request, where)
        return connection_of(
            info.context.cursors,
            page,
            [Article.of(hit.article) for hit in page.items],
            lambda: articles.count_articles(context.db, context.workspace_id, where),
            cursor_key=lambda hit: hit.cursor_key,
        )


@strawberry.type
class ArticleMutations:
    @strawberry.mutation(description="Write an article (a draft unless `status` says otherwise).")
    async def create_article(
        self, info: Info, input: CreateArticleInput
    ) -> CreateArticlePayload | None:
        context = info.context
        new = articles.NewArticle(title=input.title, body=input.body, status=input.status)

        async def action() -> dict[str, object]:
            article = await articles.create_article(
                context.db, context.actor, context.workspace_id, new
            )
            return {"article": Article.of(article)}

        return await mutate(CreateArticlePayload, action)

    @strawberry.mutation(description="Change an article's title or body.")
    async def update_article(
        self, info: Info, input: UpdateArticleInput
    ) -> UpdateArticlePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            article = await articles.update_article(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                title=input.title,
                body=input.body,
            )
            return {"article": Article.of(article)}

        return await mutate(UpdateArticlePayload, action)

    @strawberry.mutation(description="Publish an article; publishing it again changes nothing.")
    async def publish_article(self, info: Info, id: strawberry.ID) -> PublishArticlePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            article = await articles.publish_article(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"article": Article.of(article)}

        return await mutate(PublishArticlePayload, action)

    @strawberry.mutation(description="Make an article a draft again.")
    async def unpublish_article(
        self, info: Info, id: strawberry.ID
    ) -> UnpublishArticlePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            article = await articles.unpublish_article(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"article": Article.of(article)}

        return await mutate(UnpublishArticlePayload, action)
