// The logger baseline: spdlog's rotating file logger writing the same lines as `trail-bench log`.
// spdlog_bench DIR THREADS LINES MAXSIZE
#include <spdlog/spdlog.h>
#include <spdlog/sinks/rotating_file_sink.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
    if (argc < 5) return 2;
    std::string directory = argv[1];
    int threads = std::atoi(argv[2]);
    long lines = std::atol(argv[3]);
    size_t max_size = std::strtoul(argv[4], nullptr, 10);
    std::shared_ptr<spdlog::logger> logger;
    if (threads == 1) {
        logger = spdlog::rotating_logger_st("bench", directory + "/bench.log", max_size, 3);
    } else {
        logger = spdlog::rotating_logger_mt("bench", directory + "/bench.log", max_size, 3);
    }
    // The same line as Trail's: time, level, label, message, source location.
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %l %n: %v", spdlog::pattern_time_type::utc);
    long per_thread = lines / threads;
    auto work = [&](int thread) {
        for (long line = 0; line < per_thread; line++) {
            logger->info("request {} from worker {} served from the cache after a short wait (trail_bench/main.swift:44)",
                         line, thread);
        }
    };
    std::vector<std::thread> workers;
    for (int thread = 0; thread < threads; thread++) workers.emplace_back(work, thread);
    for (auto &worker : workers) worker.join();
    logger->flush();
    return 0;
}
