"""Rebuild the recall corpus: public notes folders, each at a pinned commit, outside the repository.

    python bench/corpus_fetch.py /work/corpus                # clone each repository, extract
    python bench/corpus_fetch.py /work/corpus --mirrors DIR  # bare repos DIR/<owner>+<name>/repo
    python bench/corpus_fetch.py /work/corpus --list         # print the folders, fetch nothing

Each folder is DIR/<owner>__<name>/ holding the listed notes (or whole folders of notes) at the
listed commit, paths kept.
The notes are other people's writing: they stay outside the repository and are never committed.
Their hand labels live beside them in DIR/labels/<owner>__<name>.json, in the format
bench/notes_recall.py documents; score them with `python bench/notes_recall.py --corpus DIR`.
"""

import argparse
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    repo: str  # owner/name on GitHub
    commit: str
    kind: str  # the way of writing that made us pick it (docs/benchmarks.md groups by it)
    paths: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.repo.replace("/", "__")


SOURCES = (
    Source(
        "WeThinkIn/Interview-for-Algorithm-Engineer",
        "3d1e2330a3bb99d572bfc0ef66b3a90964e73f17",
        "html-headings (zh): <h1 id=…>N.问题</h1> under a # 目录 list of anchor links",
        (
            "深度学习基础/池化层知识点.md",
            "深度学习基础/全连接层知识点.md",
            "深度学习基础/卷积层知识点.md",
            "深度学习基础/激活函数层知识点.md",
            "机器学习基础/模型评估知识点.md",
            "大模型基础/基础知识.md",
            "经典模型/目标检测高频知识点.md",
        ),
    ),
    Source(
        "scutan90/DeepLearning-500-questions",
        "6087a06b112c3c28b885ab2f794535c19a9e4326",
        "numbered-topics (zh, LaTeX): ## 5.1 topic with ### 5.1.1 non-question children",
        (
            "ch05_卷积神经网络(CNN)/第五章_卷积神经网络(CNN).md",
            "ch14_超参数调整/第十四章_超参数调整.md",
            "English version/ch03_DeepLearningFoundation/ChapterIII_DeepLearningFoundation.md",
        ),
    ),
    Source(
        "wdndev/llm_interview_note",
        "581d54dd9a72e1d0a4eb28ae50859db83901b783",
        "numbered question headings (zh): ### 6.问题 with #### 6.1 sub-questions",
        (
            "01.大语言模型基础/1.llm概念/1.llm概念.md",
            "01.大语言模型基础/1.分词/1.分词.md",
            "01.大语言模型基础/4.句法分析/4.句法分析.md",
            "01.大语言模型基础/NLP面试题/NLP面试题.md",
            "02.大语言模型架构/bert细节/bert细节.md",
            "02.大语言模型架构/5.token及模型参数/5.token及模型参数.md",
            "04.分布式训练/分布式训练题目/分布式训练题目.md",
        ),
    ),
    Source(
        "revaturelabs/interviewquestions",
        "b78c1dd26787eebc63a3e0906151d8af337d0279",
        "details-labels (en): numbered list questions, <details><summary><b>Show Answer</b>",
        (
            "InterviewSpecificQuestions/Python/Python_Interview_Ques.md",
            "InterviewSpecificQuestions/Docker/Docker.md",
            "InterviewSpecificQuestions/CoreJava/Threads.md",
        ),
    ),
    Source(
        "alexeygrigorev/data-science-interviews",
        "83a2fefb2f0cef229c0b96a729e8ce73e540ddc8",
        "toc-anchor-lists (en): ## Table of contents of anchor links, bold questions",
        ("theory.md", "contrib/probability.md"),
    ),
    Source(
        "po4yka/interview_questions",
        "db983a71d2f5af513a2e9115e74ea3c11a1aca4a",
        "obsidian-vault (en/ru): one note per question, front matter, # Question (EN) > …",
        tuple(
            f"InterviewQuestions/{path}.md"
            for path in (
                "30-System-Design/q-acid-properties--system-design--medium",
                "30-System-Design/q-alerting-strategies--system-design--medium",
                "30-System-Design/q-api-gateway-patterns--system-design--medium",
                "30-System-Design/q-back-of-envelope-estimation--system-design--medium",
                "30-System-Design/q-base-properties--system-design--medium",
                "30-System-Design/q-bloom-filters--system-design--medium",
                "30-System-Design/q-bulkhead-pattern--system-design--medium",
                "30-System-Design/q-byzantine-fault-tolerance--system-design--hard",
                "30-System-Design/q-caching-strategies--system-design--medium",
                "30-System-Design/q-cap-theorem-distributed-systems--system-design--hard",
                "30-System-Design/q-idempotency--system-design--medium",
                "60-CompSci/q-abstract-class-purpose--cs--medium",
                "60-CompSci/q-abstract-factory-pattern--cs--medium",
                "60-CompSci/q-adapter-pattern--cs--medium",
                "60-CompSci/q-bridge-pattern--cs--hard",
                "60-CompSci/q-builder-pattern--cs--medium",
                "60-CompSci/q-certificate-pinning--security--medium",
                "60-CompSci/q-chain-of-responsibility--cs--medium",
                "60-CompSci/q-class-composition--cs--medium",
                "60-CompSci/q-clean-code-principles--cs--medium",
            )
        ),
    ),
    Source(
        "datascienceinterviews/datascienceinterviews.github.io",
        "3182d7fce314f30d3a5354ce7564d13f43104f59",
        'admonition-labels (en): ### question, then ??? success "View Answer" indented body',
        (
            "docs/Interview-Questions/PyTorch.md",
            "docs/Interview-Questions/TensorFlow.md",
        ),
    ),
    Source(
        "Devinterview-io/llms-interview-questions",
        "88a155109e0d8718f2688c331671330b47ed08cd",
        "numbered question headings (en, LaTeX): ## N. question with ### sub-headings inside",
        ("README.md",),
    ),
    Source(
        "ShanghaiTechAIClub/DLInterview",
        "b8dc2d833742ce3bf506cbf30bac7b83c1b33a46",
        "bold-list-questions (zh): ## N. topic, then - **question** with * bullet answers",
        ("DL_Answers.md", "DL_Questions.md", "ML_Questions.md", "CV_Questions.md", "Math.md"),
    ),
    Source(
        "Cirice/Machine-Learning-KnowledgeBase",
        "21735364d1906966d386572dc38fdd64247cfc8f",
        "numbered question headings (en, LaTeX): #### N. question, many left unanswered",
        ("README.md",),
    ),
    Source(
        "kaizhang16/blog-hakyll",
        "f15e0806c9271f697d9f216d3309e28813dda250",
        "topic lists in a blog post (zh): a loose `1.` list of questions with indented answers",
        ("posts/2018-05-26-deep-learning-qa.md",),
    ),
    Source(
        "Peoney-code/top250-cpp-interview-questions",
        "571446d5c460393bcf0c756b9971e2a20bf1d62c",
        "details (en, C++): <details><summary> question</summary> answer with code fences",
        (
            "Basics/README.md",
            "Basics/Functions/README.md",
            "Basics/Exeptions/README.md",
            "Basics/Memory management/README.md",
            "Basics/Types, typecasting and type traits/README.md",
        ),
    ),
    Source(
        "sudheerj/reactjs-interview-questions",
        "4c355593498bb1878953b6b7f23c20c02848909e",
        "headings in list items (en): 1. ### question, indented answer, a back-to-top link",
        ("README.md",),
    ),
    Source(
        "DarLiner/Algorithm_Interview_Notes-Chinese",
        "63c1fe158169f20921d8c418112129791732e562",
        "topic notes (zh, LaTeX): ## topic headings, a few ### …？ questions, lists of statements",
        (
            "A-机器学习/A-机器学习基础.md",
            "A-机器学习/A-机器学习实践.md",
            "A-深度学习/A-深度学习基础.md",
            "A-深度学习/B-专题-CNN.md",
            "A-深度学习/B-专题-RNN.md",
            "A-深度学习/C-专题-优化算法.md",
            "B-自然语言处理/A-自然语言处理基础.md",
            "C-编程语言/Cpp-A-基础知识.md",
        ),
    ),
    Source(
        "datawhalechina/daily-interview",
        "f35e8d555f8ff07d568eae569c3641bd76d0eac9",
        "numbered questions (zh, LaTeX): ## 1. topic, ### 1.问题, **Q24：…** with bold parts",
        tuple(
            f"docs/{path}.md"
            for path in (
                "04-ai-algorithms/machine-learning/supervised-learning/SVM",
                "04-ai-algorithms/machine-learning/supervised-learning/DecisionTree",
                "04-ai-algorithms/machine-learning/ensemble-learning/XGBoost",
                "04-ai-algorithms/machine-learning/fundamentals/overfitting-underfitting",
                "04-ai-algorithms/llm/llm-interview-questions",
                "03-computer-basics/operating-system/processes-and-threads",
                "03-computer-basics/computer-network/http-protocol",
                "02-programming-languages/Java/java-fundamentals",
            )
        ),
    ),
    Source(
        "songning123456/interview-book",
        "13434c69675d4c22b368fe509a591dc52d611715",
        "backend question headings (zh): #### …？ with bold follow-ups and HTML tables",
        tuple(
            f"pages/{name}.md"
            for name in (
                "Redis",
                "Database",
                "Kafka",
                "java/JVM",
                "java/Thread",
                "Network",
                "Zookeeper",
            )
        ),
    ),
    Source(
        "bregman-arie/devops-exercises",
        "db1fe19af2971f45ea95a988751b2222d38d8d9a",
        "details (en, zh): <details><summary>question</summary><br><b>answer</b></details>",
        (
            "README-zh_CN.md",
            "topics/ansible/README.md",
            "topics/argo/README.md",
            "topics/git/README.md",
            "topics/kubernetes/README.md",
        ),
    ),
    Source(
        "shapovalovdev/devops-interview-questions",
        "3895d1e998121c1d84010fb4d2b3d80c1bc5c673",
        "one note per question (en): front matter, # task as title, ## Answer guide, ## References",
        # Whole folders, one note per question.
        ("questions/backend-architecture", "questions/databases"),
    ),
    Source(
        "Kirchhoff-/Android-Interview-Questions",
        "c5f8d07acfc0332b1c612c6b6c81688d9b8c4acb",
        "one note per question (en): the file name asks, # topic title, ## [linked] sub-headings",
        ("Android",),  # the folder, with the images its notes show
    ),
)


def _bare_repo(source: Source, *, mirrors: Path | None, cache: Path) -> Path:
    """A git directory holding the source's commit: a local mirror, or a fresh partial clone."""
    if mirrors is not None:
        local = mirrors / source.repo.replace("/", "+") / "repo"
        if local.is_dir():
            return local
    target = cache / f"{source.name}.git"
    if not target.is_dir():
        url = f"https://github.com/{source.repo}.git"
        subprocess.run(
            ["git", "clone", "--bare", "--filter=blob:none", url, str(target)], check=True
        )
    return target


def extract(source: Source, corpus: Path, *, mirrors: Path | None, cache: Path) -> int:
    """Write the source's notes under corpus/<name>/; how many paths."""
    git_dir = _bare_repo(source, mirrors=mirrors, cache=cache)
    out = corpus / source.name
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as archive:
        subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", source.commit, "--", *source.paths],
            check=True,
            stdout=archive,
        )
        archive.seek(0)
        with tarfile.open(fileobj=archive) as tar:
            tar.extractall(out, filter="data")
    return len(source.paths)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", help="directory to write the folders into")
    parser.add_argument("--mirrors", help="directory of bare repositories <owner>+<name>/repo")
    parser.add_argument("--list", action="store_true", help="print the folders and stop")
    args = parser.parse_args()
    corpus = Path(args.corpus)
    for source in SOURCES:
        print(f"{source.name}  {source.commit[:10]}  {len(source.paths)} paths  {source.kind}")
        if args.list:
            continue
        cache = corpus / ".git-cache"
        mirrors = Path(args.mirrors) if args.mirrors else None
        try:
            extract(source, corpus, mirrors=mirrors, cache=cache)
        except subprocess.CalledProcessError as exc:
            print(f"  ! {source.repo}: {exc}", file=sys.stderr)


if __name__ == "__main__":
    main()
