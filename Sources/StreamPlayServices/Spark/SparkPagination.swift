/// The `Pagination` object of a Spark answer (asked for with `_pagination=1`).
public struct SparkPagination: Sendable, Equatable {
    /// Rows in all pages.
    public let totalRows: Int
    /// Rows per page (`_limit`).
    public let pageSize: Int
    /// Number of pages.
    public let totalPages: Int
    /// This page's number, from 1 (`_page`).
    public let currentPage: Int

    /// A pagination; made from an answer's `Pagination`.
    public init(totalRows: Int, pageSize: Int, totalPages: Int, currentPage: Int) {
        self.totalRows = totalRows
        self.pageSize = pageSize
        self.totalPages = totalPages
        self.currentPage = currentPage
    }

    /// Reads a `Pagination` object; nil when a member is missing or not a whole number.
    init?(json: JSON?) {
        guard let json, let rows = json["TotalRows"]?.int, let size = json["PageSize"]?.int,
              let pages = json["TotalPages"]?.int, let page = json["CurrentPage"]?.int else { return nil }
        self.init(totalRows: rows, pageSize: size, totalPages: pages, currentPage: page)
    }

    /// Whether pages follow this one.
    public var hasNextPage: Bool { currentPage < totalPages }
}
