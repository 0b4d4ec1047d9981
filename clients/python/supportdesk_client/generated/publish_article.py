from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields, MutationErrorFields


class PublishArticle(BaseModel):
    publish_article: Optional["PublishArticlePublishArticle"]


class PublishArticlePublishArticle(BaseModel):
    article: Optional["PublishArticlePublishArticleArticle"]
    error: Optional["PublishArticlePublishArticleError"]


PublishArticlePublishArticleArticle = ArticleFields
PublishArticlePublishArticleError = MutationErrorFields
PublishArticle.model_rebuild()
PublishArticlePublishArticle.model_rebuild()
